@testable import CraveyCore
import CraveyTestSupport
import Foundation
import Testing

/// A deleted clip's sound leaves the sync folder too (docs/sync.md): the device that wrote its
/// blobs (the media, thumbnail and waveform of every media it had) takes them out once its delete
/// is in the folder, whichever machine deleted it; a device that had not merged the clip yet
/// never gets it, and nothing waits for the blobs gone.
@Suite("Sync: a deleted clip's blobs leave the folder", .temporaryFiles)
struct SyncDeletedBlobsTests {
    typealias Capture = SyncCaptureTests
    typealias Merge = SyncMergeTests

    /// The blob files in the folder, as `device/name`.
    static func blobs(in folder: URL) throws -> Set<String> {
        var found: Set<String> = []
        for device in try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("devices").path) {
            let media = folder.appendingPathComponent("devices/\(device)/media")
            for name in (try? FileManager.default.contentsOfDirectory(atPath: media.path)) ?? [] { found.insert("\(device)/\(name)") }
        }
        return found
    }

    @Test("a clip deleted where it was made: once the delete is sent, the blobs of each media it had (made, then trimmed) are out of the folder; another clip's stay; the other library deletes it and merges nothing more")
    func deletedByItsWriter() throws {
        // Given two libraries in step, with a kept clip and one trimmed once
        let (folder, libraries) = try Merge.joined(2)
        let (a, b) = (libraries[0], libraries[1])
        let kept = try Capture.save("Keep", in: a, type: .video, bytes: "kept")
        try RecordingLibrary.settle(libraries)
        let keptBlobs = try Self.blobs(in: folder)
        let doomed = try Capture.save("Breathe", in: a, type: .video, bytes: "the whole clip")
        try Capture.replaceMedia(of: doomed, in: a, with: "cut")
        try RecordingLibrary.settle(libraries)
        let made = try Self.blobs(in: folder).subtracting(keptBlobs)
        #expect(made.count > 3, "the first media, thumbnail and waveform, then the trim's: \(made)")

        // When A deletes it (the delete sent after its commit)
        _ = try a.delete(doomed.id)

        // Then the folder holds the kept clip's blobs alone; B merges the delete, and both agree
        #expect(try Self.blobs(in: folder) == keptBlobs)
        try RecordingLibrary.settle(libraries)
        #expect(try b.recording(doomed.id) == nil && (try b.recording(kept.id)) != nil)
        #expect(try Merge.snapshot(a) == (try Merge.snapshot(b)))
        #expect(try a.store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM syncBlob WHERE clip = ?", arguments: [doomed.id.description]) } == 0)
    }

    @Test("a clip deleted on another machine: its writer takes its blobs out when it merges the delete; a third library that never merged the clip never gets it, and nothing of it waits")
    func deletedElsewhere() throws {
        // Given three libraries; A makes a clip, B merges it, C is away
        let (folder, libraries) = try Merge.joined(3)
        let (a, b, c) = (libraries[0], libraries[1], libraries[2])
        let clip = try Capture.save("Breathe", in: a, type: .video)
        try RecordingLibrary.settle([a, b])
        let written = try Self.blobs(in: folder)
        #expect(written.count == 3)

        // When B deletes it, its blobs stay until A, their writer, merges the delete
        _ = try b.delete(clip.id)
        #expect(try Self.blobs(in: folder) == written, "B does not take A's blobs out")
        try a.sync.merge()
        #expect(try Self.blobs(in: folder).isEmpty)
        #expect(try a.recording(clip.id) == nil)

        // Then C, merging A's creation and B's delete at once, never has the clip; nothing waits
        let merging = try c.sync.merge()
        #expect(merging.waiting == 0 && merging.refused == 0, "\(merging)")
        #expect(try c.recording(clip.id) == nil)
        #expect(try Merge.snapshot(c) == (try Merge.snapshot(a)))
    }

    @Test("a delete made while the folder was away takes no blob out before it is sent: the blobs leave with the next send")
    func notBeforeTheDeleteIsSent() throws {
        let (folder, libraries) = try Merge.joined(2)
        let a = libraries[0]
        let clip = try Capture.save("Breathe", in: a)
        try RecordingLibrary.settle(libraries)
        let written = try Self.blobs(in: folder)
        #expect(!written.isEmpty)
        try Capture.away(folder) { _ = try a.delete(clip.id) }
        #expect(try Self.blobs(in: folder) == written, "the delete is not in the folder yet")
        try a.sync.send()
        #expect(try Self.blobs(in: folder).isEmpty)
    }
}
