@testable import CraveyCore
import CraveyTestSupport
import Foundation
import GRDB
import Testing

/// The library's side of sync, in process on real SQLite libraries (docs/sync.md): each change
/// of the library, in the transaction that makes it, leaves exactly its sync changes in the
/// outbox as one change file, sent to the folder after the commit; sync off, nothing of sync is
/// written.
@Suite("Sync: changes captured in the store", .temporaryFiles)
struct SyncCaptureTests {
    static let passphrase = Array("correct horse battery staple".utf8)

    /// A library with a saved audio clip of a few bytes (the store does not look inside media).
    static func library() throws -> RecordingLibrary {
        try RecordingLibrary(at: temporaryLibrary())
    }

    /// Saves a clip of `bytes` (and a waveform) through the store, as record and import do.
    @discardableResult
    static func save(_ title: String, in library: RecordingLibrary, type: RecordingType = .audio, bytes: String = "media bytes") throws -> Recording {
        let clip = ClipFiles(id: RecordingID(), type: type)
        let media = try library.store.create(clip.media(.recording))
        try media.write(Data(bytes.utf8))
        try media.close()
        return try library.store.write { tx in
            try tx.store(Data("peaks of \(title)".utf8), as: .waveform, of: clip)
            if type == .video { try tx.store(Data("jpeg".utf8), as: .thumbnail, of: clip) }
            return try tx.save(clip.media(.recording), as: Recording(id: clip.id, type: type, title: title, createdAt: Date(timeIntervalSince1970: 1_790_000_000),
                                                                     duration: 5, filePath: "", fileSize: 0))
        }
    }

    /// An empty folder to sync with.
    static func folder() throws -> URL {
        let url = temporaryFolder().appendingPathComponent("sync-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The outbox's change files.
    static func outbox(_ library: RecordingLibrary) throws -> [SyncLog.Pending] {
        try library.store.read { db in try SyncLog(db).outbox() }
    }

    /// What `body` sends to the folder: one change file, sent after the commit (the outbox
    /// empty again), each change written short (ids left out): `title=Walk`, `play`, `+calm`,
    /// `-calm(1)`, `marker 1500 chorus`, `pin 1 3f2a…`, ...
    static func changes(in library: RecordingLibrary, of body: () throws -> Void) throws -> [String] {
        let (folder, joined) = try #require(try library.sync.joinedFolder())
        let before = try folder.devices()[joined.device] ?? 0
        try body()
        let after = try folder.devices()[joined.device] ?? 0
        #expect(after == before + 1, "one change file a transaction")
        #expect(try outbox(library).isEmpty, "sent after the commit")
        return try folder.read(after, of: joined.device)?.map(short) ?? []
    }

    /// Runs `body` while the sync folder at `url` is not there (a USB stick unplugged): what it
    /// changes waits in the outbox. The folder is not made again meanwhile.
    static func away(_ url: URL, _ body: () throws -> Void) throws {
        let aside = url.appendingPathExtension("away")
        try FileManager.default.moveItem(at: url, to: aside)
        defer { try? FileManager.default.moveItem(at: aside, to: url) }
        try body()
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    static func short(_ change: SyncChange) -> String {
        switch change.kind {
        case .clip(let type, _, let media): "clip \(type.rawValue) \(media.file.size) bytes\(media.waveform == nil ? "" : " +waveform")\(media.thumbnail == nil ? "" : " +thumbnail")"
        case .field(let field, let value): "\(field.rawValue)=\(value ?? "nil")"
        case .words(let words): "words=\(words.map { String(decoding: $0, as: UTF8.self) } ?? "nil")"
        case .play(_, _, let completed): completed ? "play to the end" : "play"
        case .tagAdded(let tag, _): "+\(tag)"
        case .tagRemoved(let tag, let adds): "-\(tag)(\(adds.count))"
        case .markerAdded(_, let milliseconds, let label): "marker \(milliseconds) \(label ?? "nil")"
        case .markerRemoved: "marker removed"
        case .media(let media): "media \(media.file.size) bytes \(media.duration) s"
        case .delete: "delete"
        case .pin(let slot, let clip): "pin \(slot) \(clip.map { String($0.description.prefix(8)) } ?? "nil")"
        }
    }

    /// How many rows the sync tables hold, and how many plays have a sync id.
    static func syncRows(_ library: RecordingLibrary) throws -> Int {
        try library.store.read { db in
            try ["syncDevice", "syncOutbox", "syncMerged", "syncStamp", "syncMedia", "syncTagAdd", "syncMarker", "syncTombstone"].reduce(0) { count, table in
                count + (try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0)
            } + (try Int.fetchOne(db, sql: "SELECT count(*) FROM playEvent WHERE syncID IS NOT NULL") ?? 0)
        }
    }

    /// Puts new media in `recording`'s place as a trim does: a file written, renamed over the
    /// media, the row's facts written, in one transaction.
    static func replaceMedia(of recording: Recording, in library: RecordingLibrary, with bytes: String) throws {
        let clip = ClipFiles(recording)
        let rewrite = clip.media(.finished, finishing: true)
        try library.store.create(rewrite) { try $0.write(Data(bytes.utf8)) }
        try library.store.write { tx in
            let size = try tx.replaceMedia(of: clip, with: rewrite, markers: [])
            try tx.db.execute(sql: "UPDATE recording SET duration = 2.5, fileSize = ?, markers = '' WHERE id = ?", arguments: [size, recording.id.description])
        }
    }

    @Test("sync off, no change writes anything of sync: a save, an edit, a play, tags, pins, markers, words, new media, a delete and delete-all leave every sync table empty")
    func syncOff() throws {
        let library = try Self.library()
        let clip = try Self.save("Breathe", in: library)
        let other = try Self.save("Walk", in: library)
        try library.edit(clip.id) { $0.title = "Slow down"; $0.notes = "after lunch" }
        try library.countPlay(of: clip, completed: true)
        try library.tag(clip.id, adding: ["calm"])
        try library.pin(clip.id, slot: 1)
        _ = try library.markers.add(to: clip.id, at: 1.5, label: "chorus")
        try library.store.write { tx in _ = try tx.store(Data("words".utf8), as: .transcript, of: ClipFiles(clip)) }
        try Self.replaceMedia(of: clip, in: library, with: "trimmed")
        try library.delete(other.id)
        _ = try library.storage.deleteAll()
        #expect(try Self.syncRows(library) == 0)
    }

    @Test("joining tells the folder every clip whole, in one change file: the clip and its media, title, notes, purpose, tags, markers, words, plays and pin")
    func joiningTellsEverything() throws {
        let library = try Self.library()
        let clip = try Self.save("Breathe", in: library, type: .video)
        try library.edit(clip.id) { $0.notes = "after lunch"; $0.purpose = .craving }
        try library.countPlay(of: clip)
        try library.tag(clip.id, adding: ["calm", "sister"])
        _ = try library.markers.add(to: clip.id, at: 1.5, label: "chorus")
        try library.store.write { tx in _ = try tx.store(Data("spoken words".utf8), as: .transcript, of: ClipFiles(clip)) }
        try library.pin(clip.id, slot: 2)

        let folder = try Self.folder()
        #expect(try library.store.read { db in try SyncLog(db).joined() } == nil)
        // (Joined as `library.sync.join` does, without sending: the outbox keeps what it told.)
        let device = SyncDevice()
        try library.store.write { tx in
            try SyncLog(tx.db).save(SyncLog.Joined(device: device, place: SyncLog.Place(of: library.url), latest: SyncTime(milliseconds: 0, counter: 0, device: device),
                                                   nextFile: 1, folder: folder, folderID: UUID()))
            tx.syncEverything()
        }
        let outbox = try Self.outbox(library)
        #expect(outbox.count == 1)
        #expect(outbox.first?.changes.map(Self.short) == ["clip video 11 bytes +waveform +thumbnail", "title=Breathe", "notes=after lunch", "purpose=craving",
                            "+calm", "+sister", "marker 1500 chorus", "words=spoken words", "play", "pin 2 \(clip.id.description.prefix(8))"])
        // Told once: a transaction that changes nothing of it tells nothing.
        let before = try Self.outbox(library).count
        try library.store.write { _ in }
        try library.edit(clip.id) { $0.notes = "after lunch" }
        #expect(try Self.outbox(library).count == before)
    }

    @Test("each change of a joined library leaves exactly its changes, one change file a transaction: a save, each field, a play, tags, pins, markers, words, new media, a delete, delete-all")
    func eachChange() throws {
        let library = try Self.library()
        _ = try library.sync.join(try Self.folder(), passphrase: Self.passphrase, workFactor: 10)
        #expect(try Self.outbox(library).isEmpty, "joining sent what it told")

        var clip = Recording(id: RecordingID(), type: .audio, title: "", duration: 0, filePath: "", fileSize: 0)
        #expect(try Self.changes(in: library) { clip = try Self.save("Breathe", in: library) } == ["clip audio 11 bytes +waveform", "title=Breathe"])
        #expect(try Self.changes(in: library) { try library.edit(clip.id) { $0.title = "Slow down" } } == ["title=Slow down"])
        #expect(try Self.changes(in: library) { try library.edit(clip.id) { $0.notes = "after lunch" } } == ["notes=after lunch"])
        #expect(try Self.changes(in: library) { try library.edit(clip.id) { $0.purpose = .milestone } } == ["purpose=milestone"])
        #expect(try Self.changes(in: library) { try library.edit(clip.id) { $0.notes = nil; $0.purpose = nil } } == ["notes=nil", "purpose=nil"])
        #expect(try Self.changes(in: library) { try library.countPlay(of: clip, completed: true) } == ["play to the end"])
        #expect(try Self.changes(in: library) { try library.tag(clip.id, adding: ["calm", "work"]) } == ["+calm", "+work"])
        #expect(try Self.changes(in: library) { try library.tag(clip.id, removing: ["work"]) } == ["-work(1)"])
        #expect(try Self.changes(in: library) { _ = try library.markers.add(to: clip.id, at: 1.5, label: "chorus") } == ["marker 1500 chorus"])
        #expect(try Self.changes(in: library) { _ = try library.markers.add(to: clip.id, at: 3) } == ["marker 3000 nil"])
        #expect(try Self.changes(in: library) { _ = try library.markers.remove(1, of: clip.id) } == ["marker removed"])
        #expect(try Self.changes(in: library) {
            try library.store.write { tx in _ = try tx.store(Data("spoken".utf8), as: .transcript, of: ClipFiles(clip)) }
        } == ["words=spoken"])
        #expect(try Self.changes(in: library) { try library.pin(clip.id, slot: 1) } == ["pin 1 \(clip.id.description.prefix(8))"])
        let other = try Self.save("Walk", in: library)
        // The slot taken by another clip: one change, the slot's clip now.
        #expect(try Self.changes(in: library) { try library.pin(other.id, slot: 1) } == ["pin 1 \(other.id.description.prefix(8))"])
        #expect(try Self.changes(in: library) { try library.unpin(other.id) } == ["pin 1 nil"])
        #expect(try Self.changes(in: library) { try Self.replaceMedia(of: clip, in: library, with: "cut") } == ["media 3 bytes 2.5 s", "marker removed"])
        #expect(try Self.changes(in: library) { try library.delete(clip.id) } == ["delete"])
        let third = try Self.save("Run", in: library)
        #expect(try Self.changes(in: library) { _ = try library.storage.deleteAll() }.sorted() == ["delete", "delete"])
        // A delete leaves a tombstone and nothing else of the clip.
        let left = try library.store.read { db in
            (try String.fetchSet(db, sql: "SELECT clip FROM syncTombstone"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM syncStamp WHERE subject != 'quickplay'") ?? -1,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM syncMedia") ?? -1)
        }
        #expect(left.0 == Set([clip, other, third].map(\.id.description)) && left.1 == 0 && left.2 == 0)
    }

    @Test("a change that throws leaves nothing for the folder: its sync changes go with its rows, and no change file is written")
    func rolledBack() throws {
        struct Refused: Error {}
        let library = try Self.library()
        let clip = try Self.save("Breathe", in: library)
        _ = try library.sync.join(try Self.folder(), passphrase: Self.passphrase, workFactor: 10)
        let (folder, joined) = try #require(try library.sync.joinedFolder())
        #expect(throws: Refused.self) {
            try library.store.write { tx in
                _ = try ClipTags(tx.db).change(clip.id, adding: ["calm"], removing: [])
                throw Refused()
            }
        }
        #expect(try Self.outbox(library).isEmpty && folder.devices() == [joined.device: 1])
        #expect(try library.store.read { db in try SyncLog(db).joined() } == joined)
        // The next change is told as if the refused one never was.
        #expect(try Self.changes(in: library) { try library.tag(clip.id, adding: ["work"]) } == ["+work"])
    }

    @Test("a library copied beside itself takes a new device before it writes: its changes go in a log of its own, numbered from 1")
    func copiedLibrary() throws {
        let library = try Self.library()
        let clip = try Self.save("Breathe", in: library)
        _ = try library.sync.join(try Self.folder(), passphrase: Self.passphrase, workFactor: 10)
        let original = try #require(try library.store.read { db in try SyncLog(db).joined() })

        let copy = temporaryLibrary()
        try FileManager.default.copyItem(at: library.url, to: copy)
        let copied = try RecordingLibrary(at: copy)
        try copied.edit(clip.id) { $0.title = "Copied" }
        let (folder, renewed) = try #require(try copied.sync.joinedFolder())
        #expect(renewed.device != original.device && renewed.nextFile == 2)
        let changes = try #require(try folder.read(1, of: renewed.device))
        #expect(changes.map(Self.short) == ["title=Copied"] && changes.allSatisfy { $0.id.device == renewed.device && $0.time.device == renewed.device })
        // The original keeps its device and its numbering.
        try library.edit(clip.id) { $0.title = "Original" }
        #expect(try folder.devices() == [original.device: original.nextFile, renewed.device: 1])
    }

    @Test("a copy made while changes were not sent yet sends them under the original's device and numbers, the same changes; the original then finds the file written and only takes it out of its outbox")
    func copiedWithUnsentChanges() throws {
        let library = try Self.library()
        let clip = try Self.save("Breathe", in: library)
        let url = try Self.folder()
        _ = try library.sync.join(url, passphrase: Self.passphrase, workFactor: 10)
        try Self.away(url) { try library.tag(clip.id, adding: ["calm"]) }
        let unsent = try #require(try Self.outbox(library).first)

        let copy = temporaryLibrary()
        try FileManager.default.copyItem(at: library.url, to: copy)
        let copied = try RecordingLibrary(at: copy)
        try copied.edit(clip.id) { $0.title = "Copied" }  // sent after its commit, with the old device's file
        #expect(try Self.outbox(copied).isEmpty)
        let (folder, renewed) = try #require(try copied.sync.joinedFolder())
        #expect(renewed.device != unsent.device)
        #expect(try folder.read(unsent.file, of: unsent.device) == unsent.changes)
        let file = folder.changes(of: unsent.device).appendingPathComponent(SyncFolder.name(unsent.file))
        let written = try Data(contentsOf: file)
        #expect(try library.sync.send() == .init(files: 1, blobs: 0))
        #expect(try Data(contentsOf: file) == written && Self.outbox(library).isEmpty)
        #expect(try folder.devices() == [unsent.device: unsent.file, renewed.device: 1])
    }
}
