@testable import CraveyCore
import CraveyTestSupport
import Foundation
import GRDB
import Testing

/// Sending (docs/sync.md), in process on real SQLite libraries and a real folder: the outbox
/// becomes the device's change files, the media they name first, after each change's commit or
/// at the next send when the folder was not there; a crash between writing a file and taking it
/// out of the outbox writes the same file again.
@Suite("Sync: changes sent to the folder", .temporaryFiles)
struct SyncSendTests {
    typealias Capture = SyncCaptureTests

    /// The bytes of a file of the library.
    func bytes(_ library: RecordingLibrary, _ file: StoredFile?) throws -> Data {
        try Data(contentsOf: library.url.appendingPathComponent(try #require(file).path))
    }

    @Test("changes made while the folder is not there wait in the outbox, and the next send writes them; a change file read back by the folder holds the changes the store captured; each clip's media, waveform and thumbnail are in the folder, encrypted, and read back as the library's bytes")
    func sentAsCaptured() throws {
        let library = try Capture.library()
        let video = try Capture.save("Breathe", in: library, type: .video, bytes: "a video's bytes")
        let folder = try Capture.folder()
        let joining = try library.sync.join(folder, passphrase: Capture.passphrase, workFactor: 10)
        #expect(joining.created && joining.sent == .init(files: 1, blobs: 3))

        var audio: Recording?
        try Capture.away(folder) {
            audio = try Capture.save("Walk", in: library)
            try library.tag(audio!.id, adding: ["calm"])
        }
        let pending = try Capture.outbox(library)
        #expect(pending.map(\.file) == [2, 3])
        #expect(try library.sync.send() == .init(files: 2, blobs: 2))
        #expect(try Capture.outbox(library).isEmpty)

        let (sync, _) = try #require(try library.sync.joinedFolder())
        let joined = try SyncFolder.join(at: folder, passphrase: Capture.passphrase)
        for file in pending {
            #expect(try joined.read(file.file, of: file.device) == file.changes)
        }
        #expect(try joined.devices() == [joining.device: 3])
        #expect(joined.name(of: joining.device) == LibrarySync.hostName, "the device names itself as the machine is named")
        #expect(sync.key == joined.key)
        // The media, as the first change file names it.
        let first = try #require(try joined.read(1, of: joining.device))
        guard case .clip(_, _, let media) = first[0].kind else { Issue.record("no clip change first: \(first)"); return }
        #expect(try joined.read(media.file) == (try bytes(library, ClipFiles(video).media())))
        #expect(try joined.read(try #require(media.thumbnail)) == (try bytes(library, ClipFiles(video).file(.thumbnail))))
        #expect(try joined.read(try #require(media.waveform)) == (try bytes(library, ClipFiles(video).file(.waveform))))
        // Nothing in the folder names a clip or holds its words in the clear.
        let names = try FileManager.default.subpathsOfDirectory(atPath: folder.path)
        #expect(!names.contains { $0.contains(video.id.description) || $0.contains(audio!.id.description) })
        for name in names where name.hasSuffix(".age") && name != SyncFolder.keyFileName {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            #expect(data.range(of: Data("Breathe".utf8)) == nil && data.range(of: Data("calm".utf8)) == nil && data.range(of: Data("bytes".utf8)) == nil)
        }
        // The folder's key is kept in the library, for its owner alone.
        let key = library.url.appendingPathComponent(LibrarySync.keyFile.name)
        #expect((try FileManager.default.attributesOfItem(atPath: key.path)[.posixPermissions] as? Int) == 0o600)
    }

    @Test("age -d -i with the key the library keeps (sync-key.txt) opens the media the library sent, giving the clip's bytes")
    func ageOpensSentMedia() async throws {
        let (library, blob, media) = try await offPool {
            let library = try Capture.library()
            let clip = try Capture.save("Breathe", in: library, bytes: "the clip's own bytes")
            _ = try library.sync.join(try Capture.folder(), passphrase: Capture.passphrase, workFactor: 10)
            let (folder, joined) = try #require(try library.sync.joinedFolder())
            let first = try #require(try folder.read(1, of: joined.device))
            guard case .clip(_, _, let made) = first[0].kind else { throw CraveyError(.other, "no clip change first: \(first)") }
            return (library, folder.file(of: made.file), try self.bytes(library, ClipFiles(clip).media()))
        }
        let key = library.url.appendingPathComponent(LibrarySync.keyFile.name)
        let opened = try await run("age", ["-d", "-i", key.path, blob.path])
        #expect(opened.status == 0, "\(opened.error)")
        #expect(Data(opened.output.utf8) == media)
    }

    @Test("a crash between writing a change file and taking it out of the outbox: the next send finds the file, leaves its bytes as they are, and empties the outbox; a file that never got its name is written again with the same changes, under the same number")
    func crashBetweenWriteAndMark() throws {
        struct Crash: Error {}
        let library = try Capture.library()
        let folder = try Capture.folder()
        let device = try library.sync.join(folder, passphrase: Capture.passphrase, workFactor: 10).device
        var clip: Recording?
        try Capture.away(folder) { clip = try Capture.save("Breathe", in: library) }
        let pending = try #require(try Capture.outbox(library).first)
        let (sync, _) = try #require(try library.sync.joinedFolder())
        let file = sync.changes(of: device).appendingPathComponent(SyncFolder.name(pending.file))

        // Written, then the process stops before the outbox is told.
        #expect(throws: Crash.self) { try library.sync.send { _ in throw Crash() } }
        let written = try Data(contentsOf: file)
        #expect(try Capture.outbox(library).map(\.file) == [pending.file])
        #expect(try library.sync.send() == .init(files: 1, blobs: 0))
        #expect(try Data(contentsOf: file) == written)
        #expect(try Capture.outbox(library).isEmpty)

        // A change whose file never got its name (the crash came before the rename).
        try Capture.away(folder) { try library.edit(clip!.id) { $0.title = "Slow down" } }
        let next = try #require(try Capture.outbox(library).first)
        #expect(throws: Crash.self) { try library.sync.send { _ in throw Crash() } }
        let nextFile = sync.changes(of: device).appendingPathComponent(SyncFolder.name(next.file))
        try FileManager.default.removeItem(at: nextFile)
        #expect(try library.sync.send() == .init(files: 1, blobs: 0))
        #expect(try sync.read(next.file, of: device) == next.changes)
        #expect(try sync.devices() == [device: next.file])
    }

    @Test("a sync folder that is the library, is inside it or holds it is refused, and nothing is written; a library syncs with one folder")
    func overlappingFolders() throws {
        let library = try Capture.library()
        try Capture.save("Breathe", in: library)
        for folder in [library.url, library.url.appendingPathComponent("Sync"), library.url.deletingLastPathComponent()] {
            #expect(throws: CraveyError.self) { try library.sync.join(folder, passphrase: Capture.passphrase, workFactor: 10) }
        }
        #expect(!FileManager.default.fileExists(atPath: library.url.appendingPathComponent("Sync").path))
        #expect(try Capture.syncRows(library) == 0)
        _ = try library.sync.join(try Capture.folder(), passphrase: Capture.passphrase, workFactor: 10)
        #expect(throws: CraveyError.self) { try library.sync.join(try Capture.folder(), passphrase: Capture.passphrase, workFactor: 10) }
    }

    @Test("leaving sends what is not sent yet, then forgets the device, its outbox and the key; joining again tells every clip anew, its tag adds, markers and plays by the ids they had")
    func leaveAndJoinAgain() throws {
        let library = try Capture.library()
        let clip = try Capture.save("Breathe", in: library)
        try library.tag(clip.id, adding: ["calm"])
        _ = try library.markers.add(to: clip.id, at: 1.5, label: "chorus")
        try library.countPlay(of: clip, completed: true)
        let url = try Capture.folder()
        let first = try library.sync.join(url, passphrase: Capture.passphrase, workFactor: 10).device
        let (folder, _) = try #require(try library.sync.joinedFolder())
        func ids(_ changes: [SyncChange]) -> Set<UUID> {
            Set(changes.compactMap { change -> UUID? in
                switch change.kind {
                case .tagAdded(_, let add): add
                case .markerAdded(let id, _, _): id
                case .play(let id, _, _): id
                default: nil
                }
            })
        }
        let told = ids(try #require(try folder.read(1, of: first)))
        #expect(told.count == 3)

        try Capture.away(url) { try library.edit(clip.id) { $0.title = "Slow down" } }
        let left = try library.sync.leave(erasing: false)
        let sentFirst = try folder.read(2, of: first)
        #expect(left.unsent == 0 && !left.erased && sentFirst?.map(Capture.short) == ["title=Slow down"])
        #expect(try library.sync.joinedFolder() == nil)
        #expect(!FileManager.default.fileExists(atPath: library.url.appendingPathComponent(LibrarySync.keyFile.name).path))
        try library.edit(clip.id) { $0.notes = "after lunch" }  // not syncing: nothing kept for the folder
        #expect(try Capture.outbox(library).isEmpty && library.store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM syncStamp") } == 0)

        let again = try library.sync.join(url, passphrase: Capture.passphrase, workFactor: 10).device
        #expect(again != first)
        let anew = try #require(try folder.read(1, of: again))
        #expect(anew.map(Capture.short).prefix(3) == ["clip audio 11 bytes +waveform", "title=Slow down", "notes=after lunch"])
        #expect(ids(anew) == told)
    }

    @Test("leaving with erasing takes this library's files out of the folder, and no other device's; a folder that is not there is not erased, and nothing changes")
    func leaveErasing() throws {
        let laptop = try Capture.library(), desktop = try Capture.library()
        try Capture.save("Breathe", in: laptop)
        try Capture.save("Walk", in: desktop)
        let url = try Capture.folder()
        let mine = try laptop.sync.join(url, passphrase: Capture.passphrase, workFactor: 10).device
        let theirs = try desktop.sync.join(url, passphrase: Capture.passphrase, workFactor: 10).device
        try Capture.away(url) {
            #expect(throws: CraveyError.self) { try laptop.sync.leave(erasing: true) }
        }
        #expect(try laptop.sync.joinedFolder() != nil)
        let left = try laptop.sync.leave(erasing: true)
        #expect(left.erased && left.device == mine)
        let devices = try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent("devices").path)
        #expect(devices == [theirs.hex])
        #expect(try laptop.recordings().count == 1 && desktop.sync.joinedFolder() != nil)
    }
}
