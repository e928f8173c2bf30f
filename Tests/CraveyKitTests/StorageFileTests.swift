import CraveyTestSupport
import Foundation
import SystemPackage
import Testing
@testable import CraveyCore
@testable import CraveyKit

@Suite("Storage: FileStorageManager creates, replaces and removes the media files", .temporaryFiles)
struct StorageFileTests {
    let storage: FileStorageManager
    let outside: URL

    init() throws {
        storage = try FileStorageManager(libraryURL: temporaryLibrary())
        outside = temporaryFolder().appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    }

    func mode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    func recordingsFolder() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: storage.recordingsURL.path).filter { $0 != "Thumbnails" }.sorted()
    }

    /// A fragmented `.partial` recording of a 440 Hz tone, as the recorder leaves it.
    func fragmentedPartial(seconds: Double = 1) throws -> URL {
        let writer = try RecordingFileWriter(partialOf: UUID(), in: storage, options: RecordingOptions(), measuring: RecordingControl(sampleRate: 48_000, channels: 1))
        let samples = (0..<Int(48_000 * seconds)).map { Int16(8_000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        try writer.append(samples)
        try writer.finish()
        return writer.url
    }

    @Test("a partial file is 0600 from its creation, before any byte, even with umask 0")
    func privateFromTheFirstByte() throws {
        // Given the most permissive umask
        let previous = umask(0)
        // When a partial file is created
        let file: MediaFile
        do {
            defer { umask(previous) }
            file = try storage.create(storage.partialURL(for: UUID(), type: .audio))
        }
        // Then it is there, empty, and private already
        #expect(storage.size(of: file.url) == 0)
        #expect(try mode(file.url) == 0o600)
        try file.close()
    }

    @Test("creating a partial that already exists is refused and leaves the file as it was")
    func exclusive() throws {
        // Given a partial file already holding bytes
        let id = UUID()
        let existing = storage.partialURL(for: id, type: .audio)
        try Data("someone else's".utf8).write(to: existing)
        // When the same partial is created again
        #expect(throws: Errno.fileExists) { _ = try storage.create(storage.partialURL(for: id, type: .audio)) }
        // Then its bytes are untouched
        #expect(try Data(contentsOf: existing) == Data("someone else's".utf8))
    }

    @Test("a link at the partial's place is not followed: its target outside stays untouched or absent")
    func linkNotFollowed() throws {
        // Given links at two partial paths: one to a file outside the library, one to a missing one
        let target = outside.appendingPathComponent("precious.txt")
        try Data("precious".utf8).write(to: target)
        let missing = outside.appendingPathComponent("never-created.m4a")
        let linked = UUID(), dangling = UUID()
        try FileManager.default.createSymbolicLink(at: storage.partialURL(for: linked, type: .audio), withDestinationURL: target)
        try FileManager.default.createSymbolicLink(at: storage.partialURL(for: dangling, type: .audio), withDestinationURL: missing)
        // When the partials are created, Then both are refused
        #expect(throws: Errno.fileExists) { _ = try storage.create(storage.partialURL(for: linked, type: .audio)) }
        #expect(throws: Errno.fileExists) { _ = try storage.create(storage.partialURL(for: dangling, type: .audio)) }
        // And nothing outside was written or created
        #expect(try Data(contentsOf: target) == Data("precious".utf8))
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test("a rewrite replaces the fragmented file by a normal MP4 in one rename, private, leaving no .finishing")
    func rewrite() throws {
        // Given a fragmented recording
        let partial = try fragmentedPartial()
        let fragmented = try Data(contentsOf: partial)
        // When it is rewritten
        try ClipFinisher(storage: storage).rewriteAsNormalMP4(partial, type: .audio)
        // Then a different, decodable file is in its place, 0600, and nothing else is left
        #expect(try Data(contentsOf: partial) != fragmented)
        #expect(try MediaProbe.playableDuration(of: storage.media(partial)) > 0.9)
        #expect(try mode(partial) == 0o600)
        #expect(try recordingsFolder() == [partial.lastPathComponent])
    }

    @Test("a .finishing file a crash left mid-rewrite does not block the next rewrite of that file")
    func rewriteAfterCrash() throws {
        // Given a fragmented recording, and the half-written .finishing a killed rewrite left
        let partial = try fragmentedPartial()
        let leftover = FileStorageManager.finishingURL(for: partial)
        try Data(repeating: 0x5A, count: 1024).write(to: leftover)
        // When it is rewritten
        try ClipFinisher(storage: storage).rewriteAsNormalMP4(partial, type: .audio)
        // Then it is a normal, decodable MP4, and the leftover is gone
        #expect(try MediaProbe.playableDuration(of: storage.media(partial)) > 0.9)
        #expect(try recordingsFolder() == [partial.lastPathComponent])
    }

    @Test("a rewrite whose remux fails, or whose rename fails (injected), leaves the original and no .finishing")
    func rewriteFailures() throws {
        // Given a file that is not media under a partial name
        let garbage = storage.partialURL(for: UUID(), type: .audio)
        try Data(repeating: 0x5A, count: 4096).write(to: garbage)
        // When it is rewritten, Then the remux fails and the file is as it was, alone
        #expect(throws: (any Error).self) { try ClipFinisher(storage: storage).rewriteAsNormalMP4(garbage, type: .audio) }
        #expect(try Data(contentsOf: garbage) == Data(repeating: 0x5A, count: 4096))
        #expect(try recordingsFolder() == [garbage.lastPathComponent])
        try FileManager.default.removeItem(at: garbage)

        // Given a fragmented recording and a rename that fails after the remux succeeded
        let partial = try fragmentedPartial()
        let fragmented = try Data(contentsOf: partial)
        let failing = storage
        failing.faults.replacement = { _ in throw Errno.ioError }
        // When it is rewritten
        #expect(throws: Errno.ioError) { try ClipFinisher(storage: failing).rewriteAsNormalMP4(partial, type: .audio) }
        // Then the fragmented file is untouched and the finished copy is gone
        #expect(try Data(contentsOf: partial) == fragmented)
        #expect(try recordingsFolder() == [partial.lastPathComponent])
    }

    @Test("writes loop until every byte is taken: a file written 7 bytes a call equals one written at once")
    func shortWrites() throws {
        // Given a recording to remux (faststart: writes, seeks back, and rewrites the front)
        let partial = try fragmentedPartial(seconds: 2)
        // When it is remuxed once normally and once with every write(2) taking at most 7 bytes
        let whole = storage.url(of: "Recordings/whole.m4a"), short = storage.url(of: "Recordings/short.m4a")
        try storage.create(whole) { try Muxer.remux(partial, into: $0, format: "ipod") }
        try storage.create(short) { file in
            file.writeFault = StorageFaults.writesTakingAtMost(7)
            try Muxer.remux(partial, into: file, format: "ipod")
        }
        // Then both files are the same bytes, and they decode
        #expect(try Data(contentsOf: short) == Data(contentsOf: whole))
        #expect(try MediaProbe.playableDuration(of: storage.media(short)) > 1.9)
    }
}
