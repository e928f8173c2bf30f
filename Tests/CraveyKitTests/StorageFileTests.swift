import CraveyTestSupport
import Foundation
import SystemPackage
import Testing
@testable import CraveyCore
@testable import CraveyKit

@Suite("Storage: the library's store creates, replaces and removes the media files", .temporaryFiles)
struct StorageFileTests {
    let library: RecordingLibrary
    var store: LibraryStore { library.store }
    let outside: URL

    init() throws {
        library = try RecordingLibrary(at: temporaryLibrary())
        outside = temporaryFolder().appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    }

    func mode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    func recordingsFolder() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: library.recordingsURL.path).filter { $0 != "Thumbnails" }.sorted()
    }

    /// A fragmented `.partial` recording of a 440 Hz tone, as the recorder leaves it.
    func fragmentedPartial(seconds: Double = 1) throws -> StoredFile {
        let id = RecordingID()
        let writer = try RecordingFileWriter(partialOf: id, in: store, options: RecordingOptions(), measuring: RecordingControl(sampleRate: 48_000, channels: 1))
        let samples = (0..<Int(48_000 * seconds)).map { Int16(8_000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        try writer.append(samples)
        try writer.finish()
        return ClipFiles(id: id, type: .audio).media(.recording)
    }

    func partial(_ id: RecordingID = RecordingID()) -> StoredFile {
        ClipFiles(id: id, type: .audio).media(.recording)
    }

    @Test("a partial file is 0600 from its creation, before any byte, even with umask 0")
    func privateFromTheFirstByte() throws {
        // Given the most permissive umask
        let previous = umask(0)
        // When a partial file is created
        let file: MediaFile
        do {
            defer { umask(previous) }
            file = try store.create(partial())
        }
        // Then it is there, empty, and private already
        #expect(store.status(of: file.file!).size == 0)
        #expect(try mode(file.url) == 0o600)
        try file.close()
    }

    @Test("creating a partial that already exists is refused and leaves the file as it was")
    func exclusive() throws {
        // Given a partial file already holding bytes
        let id = RecordingID()
        let existing = library.fileURL(partial(id))
        try Data("someone else's".utf8).write(to: existing)
        // When the same partial is created again
        #expect(throws: Errno.fileExists) { _ = try store.create(partial(id)) }
        // Then its bytes are untouched
        #expect(try Data(contentsOf: existing) == Data("someone else's".utf8))
    }

    @Test("a link at the partial's place is not followed: its target outside stays untouched or absent")
    func linkNotFollowed() throws {
        // Given links at two partial paths: one to a file outside the library, one to a missing one
        let target = outside.appendingPathComponent("precious.txt")
        try Data("precious".utf8).write(to: target)
        let missing = outside.appendingPathComponent("never-created.m4a")
        let linked = RecordingID(), dangling = RecordingID()
        try FileManager.default.createSymbolicLink(at: library.fileURL(partial(linked)), withDestinationURL: target)
        try FileManager.default.createSymbolicLink(at: library.fileURL(partial(dangling)), withDestinationURL: missing)
        // When the partials are created, Then both are refused
        #expect(throws: Errno.fileExists) { _ = try store.create(partial(linked)) }
        #expect(throws: Errno.fileExists) { _ = try store.create(partial(dangling)) }
        // And nothing outside was written or created
        #expect(try Data(contentsOf: target) == Data("precious".utf8))
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test("a rewrite replaces the fragmented file by a normal MP4 in one rename, private, leaving no .finishing")
    func rewrite() throws {
        // Given a fragmented recording
        let partial = try fragmentedPartial()
        let fragmented = try Data(contentsOf: library.fileURL(partial))
        // When it is rewritten
        try ClipFinisher(store: store).rewriteAsNormalMP4(partial, of: StoredName(partial)!.clip)
        // Then a different, decodable file is in its place, 0600, and nothing else is left
        #expect(try Data(contentsOf: library.fileURL(partial)) != fragmented)
        #expect(try MediaProbe.playableDuration(of: store.media(partial)) > 0.9)
        #expect(try mode(library.fileURL(partial)) == 0o600)
        #expect(try recordingsFolder() == [partial.name])
    }

    @Test("a .finishing file a crash left mid-rewrite does not block the next rewrite of that file")
    func rewriteAfterCrash() throws {
        // Given a fragmented recording, and the half-written .finishing a killed rewrite left
        let partial = try fragmentedPartial()
        let clip = StoredName(partial)!.clip
        let leftover = library.fileURL(clip.media(.recording, finishing: true))
        try Data(repeating: 0x5A, count: 1024).write(to: leftover)
        // When it is rewritten
        try ClipFinisher(store: store).rewriteAsNormalMP4(partial, of: clip)
        // Then it is a normal, decodable MP4, and the leftover is gone
        #expect(try MediaProbe.playableDuration(of: store.media(partial)) > 0.9)
        #expect(try recordingsFolder() == [partial.name])
    }

    @Test("a rewrite whose remux fails, or whose rename fails (injected), leaves the original and no .finishing")
    func rewriteFailures() throws {
        // Given a file that is not media under a partial name
        let garbage = partial()
        try Data(repeating: 0x5A, count: 4096).write(to: library.fileURL(garbage))
        // When it is rewritten, Then the remux fails and the file is as it was, alone
        #expect(throws: (any Error).self) { try ClipFinisher(store: store).rewriteAsNormalMP4(garbage, of: StoredName(garbage)!.clip) }
        #expect(try Data(contentsOf: library.fileURL(garbage)) == Data(repeating: 0x5A, count: 4096))
        #expect(try recordingsFolder() == [garbage.name])
        try FileManager.default.removeItem(at: library.fileURL(garbage))

        // Given a fragmented recording and a rename that fails after the remux succeeded
        let partial = try fragmentedPartial()
        let fragmented = try Data(contentsOf: library.fileURL(partial))
        store.files!.faults.replacement = { _ throws(Errno) in throw .ioError }
        // When it is rewritten
        #expect(throws: Errno.ioError) { try ClipFinisher(store: store).rewriteAsNormalMP4(partial, of: StoredName(partial)!.clip) }
        // Then the fragmented file is untouched and the finished copy is gone
        #expect(try Data(contentsOf: library.fileURL(partial)) == fragmented)
        #expect(try recordingsFolder() == [partial.name])
    }

    @Test("writes loop until every byte is taken: a file written 7 bytes a call equals one written at once")
    func shortWrites() throws {
        // Given a recording to remux (faststart: writes, seeks back, and rewrites the front)
        let partial = try fragmentedPartial(seconds: 2)
        // When it is remuxed once normally and once with every write(2) taking at most 7 bytes
        let source = library.fileURL(partial)
        let whole = self.partial(), short = self.partial()
        try store.create(whole) { try Muxer.remux(source, into: $0, format: "ipod") }
        store.files!.faults.write = StorageFaults.writesTakingAtMost(7)
        try store.create(short) { try Muxer.remux(source, into: $0, format: "ipod") }
        store.files!.faults.write = nil
        // Then both files are the same bytes, and they decode
        #expect(try Data(contentsOf: library.fileURL(short)) == Data(contentsOf: library.fileURL(whole)))
        #expect(try MediaProbe.playableDuration(of: store.media(short)) > 1.9)
    }
}
