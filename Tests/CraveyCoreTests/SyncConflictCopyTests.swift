@testable import CraveyCore
import CraveyTestSupport
import Foundation
import Testing

/// Syncthing's conflict copies of cravey's own files (docs/sync.md): where a file changed on two
/// machines at once, Syncthing keeps one under its name and the other as
/// `NAME.sync-conflict-DATE-TIME-DEVICE.age` beside it. A device writes each of its change files
/// once, so a copy holds the same changes or a file that should not be: it is never read as new
/// changes, whatever it holds.
@Suite("Sync: Syncthing's conflict copies", .temporaryFiles)
struct SyncConflictCopyTests {
    typealias Capture = SyncCaptureTests
    typealias Merge = SyncMergeTests

    @Test("a conflict copy of a change file is never read as new changes: beside its file, a play counts once; holding other changes (a retitle), none is applied; nothing is refused or waits")
    func conflictCopiesAreNotChanges() throws {
        // Given two libraries in step, one clip in both
        let (_, libraries) = try Merge.joined(2)
        let (a, b) = (libraries[0], libraries[1])
        let clip = try Capture.save("Breathe", in: a)
        try RecordingLibrary.settle(libraries)

        // When B's play is sent as its next change file, with a conflict copy of it beside it,
        _ = try b.countPlay(of: try #require(try b.recording(clip.id)))
        let (folder, _) = try #require(try b.sync.joinedFolder())
        let device = try #require(try b.sync.status()).device
        let last = try #require(try folder.devices()[device])
        let changes = folder.changes(of: device)
        let conflict = { (number: UInt64) in changes.appendingPathComponent(SyncFolder.name(number).replacingOccurrences(of: ".age", with: ".sync-conflict-20261205-101500-ABCDEFG.age")) }
        try FileManager.default.copyItem(at: changes.appendingPathComponent(SyncFolder.name(last)), to: conflict(last))
        // and a copy holding another change of B's (a retitle) under the next file's conflict name
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let retitle = SyncChange(id: .init(device: device, file: last + 1, index: 0), time: SyncTime(milliseconds: now, counter: 0, device: device),
                                 clip: clip.id, kind: .field(.title, "Not this"))
        try Merge.craft(try SyncChange.encoder.encode([retitle]), as: last + 1, of: device, in: a)
        try FileManager.default.moveItem(at: changes.appendingPathComponent(SyncFolder.name(last + 1)), to: conflict(last + 1))
        let merging = try a.sync.merge()

        // Then A counted the play once and kept the title; nothing was refused or waits, and
        // the two libraries hold the same
        #expect(merging.files == 1 && merging.refused == 0 && merging.waiting == 0, "\(merging)")
        let merged = try #require(try a.recording(clip.id))
        #expect(merged.playCount == 1 && merged.title == "Breathe", "\(merged)")
        #expect(try a.sync.merge() == .init())
        #expect(try Merge.snapshot(a) == (try Merge.snapshot(b)))
        #expect(try #require(try a.sync.status()).refused.isEmpty)
    }
}
