@testable import CraveyCore
@testable import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// The sync folder's inbox (docs/sync.md), in process on real SQLite libraries sharing one real
/// folder, with real media imported through FFmpeg: a file dropped there is imported once (its
/// clip id made from its bytes), then taken out; a file still arriving, one that is not media and
/// a link are left in place, and the last two named.
@Suite("Sync: the inbox's media imported once", .temporaryFiles)
struct SyncInboxTests {
    static let passphrase = Array("correct horse battery staple".utf8)

    /// Libraries joined to one new folder, the first setting it up.
    static func joined(_ count: Int) async throws -> (URL, [RecordingLibrary]) {
        var libraries: [RecordingLibrary] = []
        for _ in 0..<count { libraries.append(try await Fixture.library()) }
        let folder = temporaryFolder().appendingPathComponent("sync-\(UUID().uuidString.prefix(8))")
        try await offPool { [libraries] in
            for library in libraries { _ = try library.sync.join(folder, passphrase: passphrase, workFactor: 10) }
        }
        return (folder, libraries)
    }

    /// `bytes` written into the inbox as `name`, last changed an hour ago (as a phone's recording
    /// Syncthing brought keeps its time), or now.
    @discardableResult
    static func drop(_ bytes: Data, as name: String, into folder: URL, aged: Bool = true) throws -> URL {
        let file = folder.appendingPathComponent("inbox/\(name)")
        try bytes.write(to: file)
        if aged { try FileManager.default.setAttributes([.modificationDate: Self.hourAgo], ofItemAtPath: file.path) }
        return file
    }

    static let hourAgo = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded())

    static func inbox(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("inbox").path).sorted()
    }

    @Test("one file in the inbox taken by two libraries racing, on two threads at once, is one clip on both once merged: the id its bytes make, dated when the file was last changed, titled by its name; the inbox is empty")
    func racingTakesMakeOneClip() async throws {
        let (folder, libraries) = try await Self.joined(2)
        let bytes = try Data(contentsOf: try await Fixture.audio(seconds: 0.5))
        try Self.drop(bytes, as: "Voice memo.wav", into: folder)
        async let first = offPool { try libraries[0].sync.inbox.take() }
        async let second = offPool { try libraries[1].sync.inbox.take() }
        let taken = try await [first, second]
        #expect(taken.map(\.imported.count).reduce(0, +) >= 1, "one of them imported it: \(taken)")
        let ids = Set(taken.flatMap(\.imported))
        #expect(ids.count == 1, "two imports at once make the same clip: \(ids)")
        #expect(try Self.inbox(folder).isEmpty, "taken out of the inbox")
        try await offPool { try RecordingLibrary.settle(libraries) }
        for library in libraries {
            let clips = try await offPool { try library.recordings() }
            #expect(clips.count == 1 && clips.first.map { ids.contains($0.id) } == true, "\(clips.map(\.id))")
            #expect(clips.first?.title == "Voice memo" && clips.first?.createdAt == Self.hourAgo)
        }
    }

    @Test("a file both libraries imported before either saw the other's clip (B's Syncthing still held it) is one clip once merged: the same id, one media on both, the plays of both added up, the later title on both")
    func bothImportedMerge() async throws {
        let (folder, libraries) = try await Self.joined(2)
        let (a, b) = (libraries[0], libraries[1])
        let bytes = try Data(contentsOf: try await Fixture.audio(seconds: 0.5))
        try Self.drop(bytes, as: "Voice memo.wav", into: folder)
        let byA = try await offPool { try a.sync.inbox.take() }
        let left = try Self.inbox(folder)
        #expect(byA.imported.count == 1 && byA.taken == 1 && left.isEmpty)
        try Self.drop(bytes, as: "Voice memo.wav", into: folder)
        let byB = try await offPool { try b.sync.inbox.take() }
        #expect(byB.imported == byA.imported, "the file's bytes name the clip")
        let id = try #require(byA.imported.first)
        try await offPool {
            _ = try a.countPlay(of: try #require(try a.recording(id)), completed: true)
            _ = try b.countPlay(of: try #require(try b.recording(id)), completed: true)
            try b.edit(id) { $0.title = "From the phone" }
            try RecordingLibrary.settle([a, b])
        }
        for library in [a, b] {
            let (clip, count) = try await offPool { (try library.recording(id), try library.count()) }
            let found = try #require(clip)
            #expect(count == 1 && found.playCount == 2 && found.title == "From the phone", "\(found)")
        }
        let media = try await offPool { try [a, b].map { library in try Data(contentsOf: library.fileURL(of: try #require(try library.recording(id)))) } }
        #expect(media[0] == media[1], "one media on both")
    }

    @Test("a file still arriving (Syncthing's temporary name, or changed within the last seconds) is left until whole, then imported; a text file and a link are left in place and named by the status with why; nothing outside the inbox is touched")
    func leftInPlace() async throws {
        let (folder, libraries) = try await Self.joined(1)
        let library = libraries[0]
        let bytes = try Data(contentsOf: try await Fixture.audio(seconds: 0.5))
        try Self.drop(bytes.prefix(bytes.count / 2), as: ".syncthing.Walk.wav.tmp", into: folder)
        let fresh = try Self.drop(bytes, as: "Walk.wav", into: folder, aged: false)
        try Self.drop(Data("call Sam at six\n".utf8), as: "notes.txt", into: folder)
        let outside = temporaryFolder().appendingPathComponent("outside.wav")
        try bytes.write(to: outside)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("inbox/link.wav").path, withDestinationPath: outside.path)

        // Taken a second after the copy was last changed (the time given: a loaded machine's
        // test may take longer than the 5 s itself).
        let now = try #require(try FileManager.default.attributesOfItem(atPath: fresh.path)[.modificationDate] as? Date).addingTimeInterval(1)
        let first = try await offPool { try library.sync.inbox.take(now: now) }
        #expect(first.imported.isEmpty && first.arriving == 2 && first.refused == 2, "\(first)")
        #expect(try Self.inbox(folder) == [".syncthing.Walk.wav.tmp", "Walk.wav", "link.wav", "notes.txt"])
        #expect(try await offPool { try library.sync.inbox.scan(now: now) }.arriving == [".syncthing.Walk.wav.tmp", "Walk.wav"])
        let status = try #require(try await offPool { try library.sync.status() })
        #expect(status.inbox.refused.map(\.name) == ["link.wav", "notes.txt"])
        #expect(status.inbox.refused.first?.reason.contains("not a regular file") == true)
        #expect(status.inbox.refused.last?.reason.contains("notes.txt") == true, "named by its name: \(status.inbox.refused)")

        // Whole now: the temporary file renamed away, the copy still long enough.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("inbox/.syncthing.Walk.wav.tmp"))
        try FileManager.default.setAttributes([.modificationDate: Self.hourAgo], ofItemAtPath: fresh.path)
        let second = try await offPool { try library.sync.inbox.take() }
        #expect(second.imported.count == 1 && second.refused == 2 && second.arriving == 0, "\(second)")
        #expect(try Self.inbox(folder) == ["link.wav", "notes.txt"], "the text and the link left in place")
        #expect(try await offPool { try library.recordings().map(\.title) } == ["Walk"])
        #expect(try Data(contentsOf: outside) == bytes, "the link's target untouched")
        #expect(try await offPool { try library.sync.status() }?.inbox.refused.map(\.name) == ["link.wav", "notes.txt"])
    }

    @Test("a file refused is not tried again while it stays as it is: its noted reason is kept; changed, it is tried again")
    func refusedNotTriedAgain() async throws {
        let (folder, libraries) = try await Self.joined(1)
        let library = libraries[0]
        let notes = try Self.drop(Data("call Sam at six\n".utf8), as: "notes.txt", into: folder)
        #expect(try await offPool { try library.sync.inbox.take() }.refused == 1)
        // What the first try noted, marked: a second try would write its own reason.
        try await offPool { try library.store.write { tx in try tx.db.execute(sql: "UPDATE syncInbox SET reason = 'noted before'") } }
        #expect(try await offPool { try library.sync.inbox.take() }.refused == 1)
        #expect(try await offPool { try library.sync.status() }?.inbox.refused.map(\.reason) == ["noted before"], "not tried again")
        try Data("call Sam at seven\n".utf8).write(to: notes)
        try FileManager.default.setAttributes([.modificationDate: Self.hourAgo.addingTimeInterval(60)], ofItemAtPath: notes.path)
        #expect(try await offPool { try library.sync.inbox.take() }.refused == 1)
        #expect(try await offPool { try library.sync.status() }?.inbox.refused.first?.reason.contains("notes.txt") == true, "changed: tried again")
        #expect(try Self.inbox(folder) == ["notes.txt"], "left in place")
    }
}
