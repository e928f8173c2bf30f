import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey sync`, which `cravey` runs itself, in process (``Outcome``), the passphrase given as a
/// script gives it (a pipe's descriptor): setting up, joining, sending, and what it refuses.
/// (What is captured and sent, in detail: CraveyCoreTests' SyncCaptureTests and SyncSendTests.)
@Suite("cravey sync, in process", .temporaryFiles)
struct SyncCommandTests {
    static let passphrase = "correct horse battery staple"

    @Test("sync FOLDER sets up an empty folder and sends every clip, the key kept in the library for its owner alone; another library joins it with the passphrase; `sync` sends what changed since, and nothing when nothing did")
    func setUpJoinAndSend() async throws {
        let laptop = try await Fixture.library(titles: ["Breathe", "Walk"])
        let folder = temporaryFolder().appendingPathComponent("Sync")
        let setUp = try await Outcome.of(passphrase: Self.passphrase, ["sync", folder.path, "--json", "--library", laptop.url.path])
        #expect(setUp.status == 0 && setUp.output.contains("\"action\" : \"set up\"") && setUp.output.contains("\"files\" : 1"), "\(setUp)")
        #expect(setUp.output.contains("\"blobs\" : 2"), "each clip's media (the fixture makes no waveform)")
        let key = laptop.url.appendingPathComponent("sync-key.txt")
        #expect((try FileManager.default.attributesOfItem(atPath: key.path)[.posixPermissions] as? Int) == 0o600)
        #expect(try String(contentsOf: key, encoding: .utf8).contains("AGE-SECRET-KEY-1"))

        let desktop = try await Fixture.library(titles: ["Run"])
        let joined = try await Outcome.of(passphrase: Self.passphrase, ["sync", folder.path, "--library", desktop.url.path])
        #expect(joined.status == 0 && joined.error.contains("Joined the sync folder"), "\(joined)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("devices").path).count == 2)

        // A change made while the folder is not there (sent after its commit otherwise).
        try await offPool {
            let clip = try #require(try laptop.recordings().first)
            try FileManager.default.moveItem(at: folder, to: folder.appendingPathExtension("away"))
            try laptop.edit(clip.id) { $0.title = "Slow down" }
            try FileManager.default.moveItem(at: folder.appendingPathExtension("away"), to: folder)
        }
        let sent = try await Outcome.of(["sync", "--library", laptop.url.path])
        #expect(sent.status == 0 && sent.error.contains("sent 1 change file and 0 media files"), "\(sent)")
        let again = try await Outcome.of(["sync", "--library", laptop.url.path])
        #expect(again.status == 0 && again.error.contains("nothing new to send"), "\(again)")
    }

    @Test("sync merges after it sends: joining brings the other library's clips, `sync` the other's since; a change file that does not authenticate is refused, said by `sync` and named with its reason by `sync --status`, as text and JSON")
    func mergesAndSaysRefused() async throws {
        let laptop = try await Fixture.library(titles: ["Breathe", "Walk"])
        let folder = temporaryFolder().appendingPathComponent("Sync")
        let setUp = try await Outcome.of(passphrase: Self.passphrase, ["sync", folder.path, "--library", laptop.url.path])
        try #require(setUp.status == 0, "\(setUp)")
        let desktop = try await Fixture.library(titles: ["Run"])
        let joined = try await Outcome.of(passphrase: Self.passphrase, ["sync", folder.path, "--library", desktop.url.path])
        #expect(joined.status == 0 && joined.error.contains("merged 1 change file of other machines (4 changes, 2 media files)"), "each clip and its title: \(joined)")
        let synced = try await Outcome.of(["sync", "--library", laptop.url.path])
        #expect(synced.status == 0 && synced.error.contains("nothing new to send; merged 1 change file"), "\(synced)")
        #expect(try await offPool { (try laptop.count(), try desktop.count()) } == (3, 3))

        // The laptop's next change file damaged in the folder (as a crafted or broken copy would be).
        let (device, file) = try await offPool {
            let clip = try #require(try laptop.recordings().first)
            try laptop.edit(clip.id) { $0.title = "Slow down" }
            let status = try #require(try laptop.sync.status())
            return (status.device, try #require(status.devices[status.device]))
        }
        let path = folder.appendingPathComponent("devices/\(device.hex)/changes/\(String(format: "%020llu", file)).age")
        var bytes = try Data(contentsOf: path)
        bytes[bytes.count - 20] ^= 1
        try bytes.write(to: path)
        let refused = try await Outcome.of(["sync", "--library", desktop.url.path])
        #expect(refused.status == 0 && refused.error.contains("1 refused (`cravey sync --status` says why)"), "\(refused)")
        let text = try await Outcome.of(["sync", "--status", "--library", desktop.url.path])
        #expect(text.status == 0 && text.output.contains("Refused (not merged, nor their device's later files):")
                && text.output.contains("  \(device.hex) change file \(file): "), "\(text)")
        let json = try await Outcome.of(["sync", "--status", "--json", "--library", desktop.url.path])
        #expect(json.status == 0 && json.output.contains("\"file\" : \(file)") && json.output.contains("\"reason\" : \""), "\(json)")
        #expect(try await offPool { try desktop.recordings().contains { $0.title == "Slow down" } } == false, "nothing of it applied")
    }

    @Test("sync --status says the folder, this library's device, what is not sent yet and each device's last change file, as text and as JSON; it sends nothing")
    func status() async throws {
        let library = try await Fixture.library(titles: ["Breathe"])
        let folder = temporaryFolder().appendingPathComponent("Sync")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try SyncFolder.create(at: folder, passphrase: Array(Self.passphrase.utf8), workFactor: 10)
        let joined = try await Outcome.of(passphrase: Self.passphrase, ["sync", folder.path, "--json", "--library", library.url.path])
        try #require(joined.status == 0, "\(joined)")
        let device = try #require(try await offPool { try library.sync.joinedFolder()?.1.device })
        try await offPool {
            let clip = try #require(try library.recordings().first)
            try FileManager.default.moveItem(at: folder, to: folder.appendingPathExtension("away"))
            try library.tag(clip.id, adding: ["calm"])
            try FileManager.default.moveItem(at: folder.appendingPathExtension("away"), to: folder)
        }
        let text = try await Outcome.of(["sync", "--status", "--library", library.url.path])
        #expect(text.status == 0 && text.output.contains("Sync folder: \(folder.path)") && text.output.contains("Not sent yet: 1 change file")
                && text.output.contains("  \(device.hex) \"") && text.output.contains("\" (this library): last change file 1"), "\(text)")
        let json = try await Outcome.of(["sync", "--status", "--json", "--library", library.url.path])
        #expect(json.status == 0 && json.output.contains("\"unsent\" : 1") && json.output.contains("\"isThisLibrary\" : true")
                && json.output.contains("\"name\" : \"\(ProcessInfo.processInfo.hostName.split(separator: ".").first ?? "")"), "\(json)")
        #expect(try await offPool { try library.sync.status()?.unsent } == 1, "--status sent nothing")
        let refused = try await Outcome.of(["sync", folder.path, "--status", "--library", library.url.path])
        #expect(refused.status == 64 && refused.refusedAtParse, "\(refused)")
    }

    @Test("sync FOLDER refuses a passphrase that does not open the folder (exit 67) and a folder that is the library, inside it, holds it, or is neither empty nor a sync folder (exit 76); nothing is written")
    func refusals() async throws {
        let folder = temporaryFolder().appendingPathComponent("Sync")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try SyncFolder.create(at: folder, passphrase: Array(Self.passphrase.utf8), workFactor: 10)
        let library = try await Fixture.library(titles: ["Breathe"])
        let before = try Fixture.bytes(of: folder)
        let libraryBefore = try Fixture.bytes(of: library.url)

        let wrong = try await Outcome.of(passphrase: "not it", ["sync", folder.path, "--library", library.url.path])
        #expect(wrong.status == 67 && wrong.error.contains("does not open the sync folder"), "\(wrong)")

        let mine = temporaryFolder().appendingPathComponent("Mine")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        try Data("my notes".utf8).write(to: mine.appendingPathComponent("notes.txt"))
        for (place, says) in [(library.url, "is the library folder"), (library.url.appendingPathComponent("Recordings"), "inside the library folder"),
                              (library.url.deletingLastPathComponent(), "holds the library folder"), (mine, "neither a sync folder nor empty")] {
            let refused = try await Outcome.of(passphrase: Self.passphrase, ["sync", place.path, "--library", library.url.path])
            #expect(refused.status == 76 && refused.error.contains(says), "\(place.path): \(refused)")
        }
        #expect(try Fixture.bytes(of: folder) == before)
        #expect(try Fixture.bytes(of: library.url).keys.sorted() == libraryBefore.keys.sorted())
        #expect(try Fixture.bytes(of: mine).keys.sorted() == ["notes.txt"])
    }

    @Test("a new machine joins with no library yet: its library is made, joined, and holds the other machine's clips; a refusal there (a wrong passphrase, a folder neither empty nor a sync folder, one inside the library to be) makes no library")
    func newMachineJoins() async throws {
        // Given a library that set up a folder, and a second machine whose library is not there
        let folder = temporaryFolder().appendingPathComponent("Sync")
        let laptop = try await Fixture.library(titles: ["Breathe"])
        #expect(try await Outcome.of(passphrase: Self.passphrase, ["sync", folder.path, "--library", laptop.url.path]).status == 0)
        let desktop = temporaryFolder().appendingPathComponent("desktop-library")

        // When it joins with a wrong passphrase, or names a folder it cannot use, nothing is made
        let mine = temporaryFolder().appendingPathComponent("Mine")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        try Data("my notes".utf8).write(to: mine.appendingPathComponent("notes.txt"))
        for (passphrase, place, status) in [("not it", folder, Int32(67)), (Self.passphrase, mine, 76), (Self.passphrase, desktop.appendingPathComponent("Sync"), 76)] {
            let refused = try await Outcome.of(passphrase: passphrase, ["sync", place.path, "--library", desktop.path])
            #expect(refused.status == status, "\(place.path): \(refused)")
            #expect(!FileManager.default.fileExists(atPath: desktop.path), "\(place.path): a library was made")
        }

        // When it joins with the passphrase
        let joined = try await Outcome.of(passphrase: Self.passphrase, ["sync", folder.path, "--library", desktop.path])

        // Then its library is made (0700), joined, and holds the laptop's clip
        #expect(joined.status == 0 && joined.error.contains("Joined the sync folder"), "\(joined)")
        let mode = try FileManager.default.attributesOfItem(atPath: desktop.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        let made = try RecordingLibrary(at: desktop)
        #expect(try made.recordings().map(\.title) == ["Breathe"])
        #expect(try made.sync.status()?.folder.path == folder.standardizedFileURL.path)
    }

    @Test("sync without a folder in a library that joined none is exit 66; --passphrase-fd without a folder is a usage error (exit 64)")
    func notJoined() async throws {
        let library = try await Fixture.library(titles: ["Breathe"])
        let none = try await Outcome.of(["sync", "--library", library.url.path])
        #expect(none.status == 66 && none.error.contains("cravey sync FOLDER"), "\(none)")
        let usage = try await Outcome.of(["sync", "--passphrase-fd", "3", "--library", library.url.path])
        #expect(usage.status == 64 && usage.refusedAtParse, "\(usage)")
        let leave = try await Outcome.of(["sync", "--leave", "--library", library.url.path])
        #expect(leave.status == 66 && leave.error.contains("nothing to leave"), "\(leave)")
        let erase = try await Outcome.of(["sync", "--erase", "--library", library.url.path])
        #expect(erase.status == 64 && erase.refusedAtParse, "\(erase)")
    }

    @Test("sync --show-key prints the key the library keeps; sync --leave --erase stops syncing, forgets the key and takes the library's files out of the folder")
    func leave() async throws {
        let library = try await Fixture.library(titles: ["Breathe"])
        let folder = temporaryFolder().appendingPathComponent("Sync")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try SyncFolder.create(at: folder, passphrase: Array(Self.passphrase.utf8), workFactor: 10)
        let joined = try await Outcome.of(passphrase: Self.passphrase, ["sync", folder.path, "--library", library.url.path])
        try #require(joined.status == 0, "\(joined)")
        let shown = try await Outcome.of(["sync", "--show-key", "--library", library.url.path])
        let kept = try String(contentsOf: library.url.appendingPathComponent("sync-key.txt"), encoding: .utf8)
        let key = try #require(kept.split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") })
        #expect(shown.status == 0 && shown.output.split(separator: "\n").contains(key), "\(shown)")
        let left = try await Outcome.of(["sync", "--leave", "--erase", "--library", library.url.path])
        #expect(left.status == 0 && left.error.contains("Left the sync folder") && left.error.contains("took this library's files out of it"), "\(left)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("devices").path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: library.url.appendingPathComponent("sync-key.txt").path))
        let status = try await Outcome.of(["sync", "--status", "--library", library.url.path])
        #expect(status.status == 66, "\(status)")
    }

    /// A library that syncs with a new folder, and its one clip's id.
    static func syncing() async throws -> (RecordingLibrary, URL, RecordingID) {
        let library = try await Fixture.library(titles: ["Breathe"])
        let folder = temporaryFolder().appendingPathComponent("Sync-\(UUID().uuidString.prefix(8))")
        let setUp = try await Outcome.of(passphrase: Self.passphrase, ["sync", folder.path, "--library", library.url.path])
        try #require(setUp.status == 0, "\(setUp)")
        let id = try await offPool { try #require(try library.recordings().first).id }
        return (library, folder, id)
    }

    /// Edits the clip while `fault` keeps the folder from being written: the edit is saved (exit
    /// 0) and says, in one line, that it was not sent; `cravey sync` sends it once `mend` undid it.
    static func editUnsent(_ library: RecordingLibrary, _ folder: URL, _ id: RecordingID, why: String) async throws {
        let edited = try await Outcome.of(["edit", id.description, "--title", "Slow down", "--library", library.url.path])
        #expect(edited.status == 0, "the clip is saved: \(edited)")
        let said = edited.error.split(separator: "\n").filter { $0.contains("sync") }
        #expect(said.count == 1, "one line: \(edited.error)")
        let line = String(said.first ?? "")
        #expect(line.hasPrefix("cravey: warning: the change is saved, but not sent to the sync folder \(folder.path) ("), "\(line)")
        #expect(line.contains(why) && line.hasSuffix("it is kept, and `cravey sync` (or the next change) sends it."), "\(line)")
        #expect(try await offPool { try library.recording(id)?.title } == "Slow down")
        let status = try await Outcome.of(["sync", "--status", "--json", "--library", library.url.path])
        #expect(status.output.contains("\"unsent\" : 1"), "kept in the outbox: \(status.output)")
    }

    /// `cravey sync` sends what the outbox kept, once the folder can be written again.
    static func sendsKept(_ library: RecordingLibrary) async throws {
        let sent = try await Outcome.of(["sync", "--library", library.url.path])
        #expect(sent.status == 0 && sent.error.contains("sent 1 change file"), "\(sent)")
        let status = try await Outcome.of(["sync", "--status", "--json", "--library", library.url.path])
        #expect(status.output.contains("\"unsent\" : 0"), "\(status.output)")
    }

    @Test("a change whose send fails (the sync folder replaced by a file) is saved, exit 0, and said in one line naming the folder and that `cravey sync` sends it; the next `cravey sync` sends it")
    func failedSendSaid() async throws {
        let (library, folder, id) = try await Self.syncing()
        let aside = folder.appendingPathExtension("away")
        try FileManager.default.moveItem(at: folder, to: aside)
        try Data("not a folder".utf8).write(to: folder)
        try await Self.editUnsent(library, folder, id, why: "it is not there, or has no devices/")
        try FileManager.default.removeItem(at: folder)
        try FileManager.default.moveItem(at: aside, to: folder)
        try await Self.sendsKept(library)
    }

    @Test("a change whose send fails on a read-only sync folder (a read-only bind mount: root ignores mode bits) is saved and said, exit 0; `cravey sync` sends it once the folder is writable",
          .enabled("this machine does not let the tests mount") { await canMount() })
    func readOnlyFolderSaid() async throws {
        let (library, folder, id) = try await Self.syncing()
        let bound = try await run("mount", ["--bind", folder.path, folder.path])
        try #require(bound.status == 0, "mount --bind failed: \(bound.error)")
        do {
            let readOnly = try await run("mount", ["-o", "remount,bind,ro", folder.path])
            try #require(readOnly.status == 0, "remount ro failed: \(readOnly.error)")
            try await Self.editUnsent(library, folder, id, why: "Read-only file system")
        } catch {
            _ = try? await run("umount", [folder.path])
            throw error
        }
        _ = try await run("umount", [folder.path])
        try await Self.sendsKept(library)
    }

    /// Whether this machine lets the tests bind-mount (root with CAP_SYS_ADMIN).
    static func canMount() async -> Bool {
        guard let folder = try? TemporaryFolder() else { return false }
        defer { folder.remove() }
        guard (try? await run("mount", ["--bind", folder.url.path, folder.url.path]).status) == 0 else { return false }
        _ = try? await run("umount", [folder.url.path])
        return true
    }
}

extension SyncCommandTests {
    @Test("sync imports the media dropped into the folder's inbox (cravey hands it to cravey-media), says so and takes it out; a text file is left, said, and named by --status with why")
    func syncTakesInbox() async throws {
        let (library, folder, _) = try await Self.syncing()
        let source = try await Fixture.audio(seconds: 0.5)
        let hourAgo = Date().addingTimeInterval(-3600)
        for (name, bytes) in [("Phone memo.wav", try Data(contentsOf: source)), ("notes.txt", Data("call Sam\n".utf8))] {
            let file = folder.appendingPathComponent("inbox/\(name)")
            try bytes.write(to: file)
            try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: file.path)
        }
        let synced = try await Outcome.of(["sync", "--library", library.url.path])
        #expect(synced.status == 0 && synced.error.contains("imported 1 file from the inbox"), "\(synced)")
        #expect(synced.error.contains("1 file in the inbox not imported, left there"), "\(synced)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("inbox").path) == ["notes.txt"])
        #expect(try await offPool { try library.recordings().map(\.title).sorted() } == ["Breathe", "Phone memo"])
        let status = try await Outcome.of(["sync", "--status", "--library", library.url.path])
        #expect(status.output.contains("notes.txt: left there, not imported:"), "\(status.output)")
        let again = try await Outcome.of(["sync", "--library", library.url.path])
        #expect(again.status == 0 && again.error.contains("nothing new to send") && !again.error.contains("imported 1 file"), "\(again)")
    }
}
