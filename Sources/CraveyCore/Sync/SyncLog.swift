import Foundation
import GRDB

/// What a library keeps for sync (docs/sync.md), as GRDB requests on a `Database`: the device it
/// is and its clock, the outbox of changes not yet written to the folder, and what the folder
/// has been told of each clip (each field's value and the change that set it, its media, its
/// tags' add ids, its markers' ids, its plays' ids, the clips deleted). Like
/// ``RecordingRepository`` it takes no lock: the transaction is the caller's.
///
/// Nothing here is written until the library joins a sync folder: before, the tables are empty
/// and every change of the library costs one read of the empty `syncDevice` table.
package struct SyncLog {
    private let db: Database

    package init(_ db: Database) {
        self.db = db
    }

    /// The library as a device of a sync folder.
    package struct Joined: Equatable, Sendable {
        package var device: SyncDevice
        /// Where the device is (``Place``): a library opened elsewhere takes a new device.
        package var place: Place
        /// Its clock's latest time.
        package var latest: SyncTime
        /// The number its next change file takes.
        package var nextFile: UInt64
        /// The sync folder, and its id.
        package var folder: URL
        package var folderID: UUID
    }

    /// Where a library is: the machine (`/etc/machine-id`) and its folder's inode. A library
    /// copied to another machine, or restored, or copied beside itself, is somewhere else.
    package struct Place: Equatable, Sendable {
        package var machine: String
        package var inode: UInt64

        package init(machine: String, inode: UInt64) {
            (self.machine, self.inode) = (machine, inode)
        }

        /// Where the library folder at `url` is now.
        package init(of url: URL) {
            var info = stat()
            self.init(machine: Self.machine, inode: stat(url.path, &info) == 0 ? UInt64(info.st_ino) : 0)
        }

        /// This machine's id (systemd's `/etc/machine-id`); empty where there is none.
        static let machine: String = {
            let text = (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8)) ?? ""
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }()
    }

    /// The changes of one change file, as the outbox holds them.
    package struct Pending: Sendable {
        package var device: SyncDevice
        package var file: UInt64
        package var changes: [SyncChange]
    }

    /// Makes the tables (the migration `sync`).
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE syncDevice (
                one INTEGER PRIMARY KEY CHECK (one = 1), device TEXT NOT NULL, machine TEXT NOT NULL,
                inode INTEGER NOT NULL, milliseconds INTEGER NOT NULL, counter INTEGER NOT NULL,
                nextFile INTEGER NOT NULL, folder TEXT NOT NULL, folderID TEXT NOT NULL);
            CREATE TABLE syncOutbox (
                device TEXT NOT NULL, file INTEGER NOT NULL, position INTEGER NOT NULL, change BLOB NOT NULL,
                PRIMARY KEY (device, file, position)) WITHOUT ROWID;
            CREATE TABLE syncMerged (device TEXT PRIMARY KEY, file INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE syncStamp (
                subject TEXT NOT NULL, field TEXT NOT NULL, value TEXT, milliseconds INTEGER NOT NULL,
                counter INTEGER NOT NULL, device TEXT NOT NULL, file INTEGER NOT NULL, position INTEGER NOT NULL,
                PRIMARY KEY (subject, field)) WITHOUT ROWID;
            CREATE TABLE syncMedia (clip TEXT PRIMARY KEY, media BLOB NOT NULL) WITHOUT ROWID;
            CREATE TABLE syncTagAdd (clip TEXT NOT NULL, tag TEXT NOT NULL, id TEXT NOT NULL,
                PRIMARY KEY (clip, tag, id)) WITHOUT ROWID;
            CREATE TABLE syncMarker (clip TEXT NOT NULL, id TEXT NOT NULL, milliseconds INTEGER NOT NULL, label TEXT,
                made TEXT NOT NULL DEFAULT '', PRIMARY KEY (clip, id)) WITHOUT ROWID;
            CREATE TABLE syncRemoved (clip TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (clip, id)) WITHOUT ROWID;
            CREATE TABLE syncTombstone (clip TEXT PRIMARY KEY) WITHOUT ROWID;
            CREATE TABLE syncRefused (device TEXT NOT NULL, file INTEGER NOT NULL, reason TEXT NOT NULL,
                PRIMARY KEY (device, file)) WITHOUT ROWID;
            ALTER TABLE playEvent ADD COLUMN syncID TEXT;
            CREATE UNIQUE INDEX playEvent_on_syncID ON playEvent(syncID) WHERE syncID IS NOT NULL;
            """)
    }

    // MARK: - The device

    /// The device, when the library has joined a sync folder; nil (sync off) when not.
    package func joined() throws -> Joined? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM syncDevice")),
              let device = SyncDevice(hex: row["device"]), let folderID = UUID(uuidString: row["folderID"]) else { return nil }
        let latest = SyncTime(milliseconds: row["milliseconds"], counter: UInt32(row["counter"] as Int64), device: device)
        return Joined(device: device, place: Place(machine: row["machine"], inode: UInt64(row["inode"] as Int64)), latest: latest,
                      nextFile: UInt64(row["nextFile"] as Int64), folder: URL(fileURLWithPath: row["folder"]), folderID: folderID)
    }

    /// Makes the library a device of a sync folder, or writes its device as it now is.
    package func save(_ joined: Joined) throws {
        try db.execute(sql: """
            INSERT OR REPLACE INTO syncDevice (one, device, machine, inode, milliseconds, counter, nextFile, folder, folderID)
            VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [joined.device.hex, joined.place.machine, Int64(joined.place.inode), joined.latest.milliseconds,
                             Int64(joined.latest.counter), Int64(joined.nextFile), joined.folder.path, joined.folderID.uuidString])
    }

    /// The device that writes from `place`: the joined one when the library is where it joined,
    /// else a new one (written here, before anything else is), so that a library copied or
    /// restored never writes into another's log. The new device starts its own files from 1;
    /// the changes its old device has not sent yet stay that device's (a copy sends them as the
    /// original would: the same numbers, the same changes), and its files count as merged.
    package func device(_ joined: Joined, at place: Place) throws -> Joined {
        guard joined.place != place else { return joined }
        var renewed = joined
        renewed.device = SyncDevice()
        renewed.place = place
        renewed.nextFile = 1
        renewed.latest = SyncTime(milliseconds: joined.latest.milliseconds, counter: joined.latest.counter, device: renewed.device)
        try save(renewed)
        try db.execute(sql: "INSERT OR REPLACE INTO syncMerged (device, file) VALUES (?, ?)",
                       arguments: [joined.device.hex, Int64(joined.nextFile) - 1])
        return renewed
    }

    // MARK: - The outbox

    /// Writes `changes`, what one transaction did, into the outbox as the device's next change
    /// file (each with its id and a time of the device's clock), and notes what the folder is
    /// told (``note(_:)``). Nothing for no change. Returns the changes as written.
    @discardableResult
    package func record(_ changes: [(clip: RecordingID?, kind: SyncChange.Kind)], as joined: Joined) throws -> [SyncChange] {
        guard !changes.isEmpty else { return [] }
        var clock = SyncClock(device: joined.device, latest: joined.latest)
        let encoder = SyncChange.encoder
        var written: [SyncChange] = []
        for (index, (clip, kind)) in changes.enumerated() {
            let change = SyncChange(id: .init(device: joined.device, file: joined.nextFile, index: UInt32(index)), time: clock.now(), clip: clip, kind: kind)
            try db.execute(sql: "INSERT INTO syncOutbox (device, file, position, change) VALUES (?, ?, ?, ?)",
                           arguments: [joined.device.hex, Int64(joined.nextFile), index, try encoder.encode(change)])
            try note(change)
            written.append(change)
        }
        var advanced = joined
        advanced.latest = clock.latest
        advanced.nextFile += 1
        try save(advanced)
        return written
    }

    /// The outbox: each change file not yet written to the folder, in the order written.
    package func outbox() throws -> [Pending] {
        var pending: [Pending] = []
        let decoder = SyncChange.decoder
        for row in try Row.fetchAll(db, sql: "SELECT device, file, change FROM syncOutbox ORDER BY device, file, position") {
            guard let device = SyncDevice(hex: row["device"]) else { continue }
            let file = UInt64(row["file"] as Int64)
            let change = try decoder.decode(SyncChange.self, from: row["change"] as Data)
            if pending.last?.device == device, pending.last?.file == file {
                pending[pending.count - 1].changes.append(change)
            } else {
                pending.append(Pending(device: device, file: file, changes: [change]))
            }
        }
        return pending
    }

    /// Forgets change file `file` of `device`: it is in the folder.
    package func sent(_ file: UInt64, of device: SyncDevice) throws {
        try db.execute(sql: "DELETE FROM syncOutbox WHERE device = ? AND file = ?", arguments: [device.hex, Int64(file)])
    }

    // MARK: - What the folder has been told

    /// Notes what `change` tells the folder, so that the next change of its clip is compared
    /// with it: a field's value and time, the media, a tag's add ids, a marker's id, a delete.
    func note(_ change: SyncChange) throws {
        let subject = change.clip?.description ?? Self.quickPlay
        switch change.kind {
        case .clip(_, _, let media), .media(let media):
            try db.execute(sql: "INSERT OR REPLACE INTO syncMedia (clip, media) VALUES (?, ?)",
                           arguments: [subject, try SyncChange.encoder.encode(media)])
            try SyncBlobs(db: db).note(media, of: subject)
            try stamp(subject, "media", nil, change)
        case .field(let field, let value):
            try stamp(subject, field.rawValue, value, change)
        case .words:
            try stamp(subject, "words", nil, change)
        case .pin(let slot, let clip):
            try stamp(subject, "slot\(slot)", clip?.description, change)
        case .tagAdded(let tag, let add):
            guard try !isRemoved(add, of: subject) else { break }  // its remove came first (merged from another device)
            try db.execute(sql: "INSERT OR IGNORE INTO syncTagAdd (clip, tag, id) VALUES (?, ?, ?)", arguments: [subject, tag, add.uuidString])
        case .tagRemoved(let tag, let adds):
            for add in adds {
                try db.execute(sql: "DELETE FROM syncTagAdd WHERE clip = ? AND tag = ? AND id = ?", arguments: [subject, tag, add.uuidString])
                try removed(add, of: subject)
            }
        case .markerAdded(let id, let milliseconds, let label):
            guard try !isRemoved(id, of: subject) else { break }
            try db.execute(sql: "INSERT OR REPLACE INTO syncMarker (clip, id, milliseconds, label, made) VALUES (?, ?, ?, ?, ?)",
                           arguments: [subject, id.uuidString, milliseconds, label, Self.order(change)])
        case .markerRemoved(let id):
            try db.execute(sql: "DELETE FROM syncMarker WHERE clip = ? AND id = ?", arguments: [subject, id.uuidString])
            try removed(id, of: subject)
        case .delete:
            try db.execute(sql: "INSERT OR IGNORE INTO syncTombstone (clip) VALUES (?)", arguments: [subject])
            for table in ["syncStamp WHERE subject", "syncMedia WHERE clip", "syncTagAdd WHERE clip", "syncMarker WHERE clip", "syncRemoved WHERE clip"] {
                try db.execute(sql: "DELETE FROM \(table) = ?", arguments: [subject])
            }
        case .play:
            break  // the play's row holds its id (``unsentPlays(of:)``)
        }
    }

    /// Notes that the tag add or marker `id` of clip `subject` was removed: an add of it merged
    /// later (from a device that had not seen the remove) stays removed.
    private func removed(_ id: UUID, of subject: String) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO syncRemoved (clip, id) VALUES (?, ?)", arguments: [subject, id.uuidString])
    }

    private func isRemoved(_ id: UUID, of subject: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM syncRemoved WHERE clip = ? AND id = ?", arguments: [subject, id.uuidString]) ?? false
    }

    /// A change's place in the order of changes (its time, then its id) as text that sorts so.
    static func order(_ change: SyncChange) -> String {
        let time = change.time, id = change.id
        return String(format: "%020llu.%010u.", UInt64(bitPattern: time.milliseconds) ^ (1 << 63), time.counter)
            + time.device.hex + String(format: ".%020llu.%010u", id.file, id.index)
    }

    /// The order (``order(_:)``) of the change that set `field` of `subject`, as the folder was
    /// last told it; nil when it was told nothing of it.
    func stamped(_ subject: String, _ field: String) throws -> String? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM syncStamp WHERE subject = ? AND field = ?"), arguments: [subject, field]),
              let device = SyncDevice(hex: row["device"]) else { return nil }
        let time = SyncTime(milliseconds: row["milliseconds"], counter: UInt32(row["counter"] as Int64), device: device)
        return Self.order(SyncChange(id: .init(device: device, file: UInt64(row["file"] as Int64), index: UInt32(row["position"] as Int64)),
                                     time: time, clip: nil, kind: .delete))
    }

    /// Whether clip `id` was deleted (here, or by a change merged).
    func isDeleted(_ id: RecordingID) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM syncTombstone WHERE clip = ?", arguments: [id.description]) ?? false
    }

    /// The number of the last change file of each device merged here.
    package func merged() throws -> [SyncDevice: UInt64] {
        var merged: [SyncDevice: UInt64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT device, file FROM syncMerged") {
            if let device = SyncDevice(hex: row["device"]) { merged[device] = UInt64(row["file"] as Int64) }
        }
        return merged
    }

    /// Notes change file `file` of `device` merged, and no longer refused.
    func merged(_ file: UInt64, of device: SyncDevice) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO syncMerged (device, file) VALUES (?, ?)", arguments: [device.hex, Int64(file)])
        try db.execute(sql: "DELETE FROM syncRefused WHERE device = ? AND file <= ?", arguments: [device.hex, Int64(file)])
    }

    /// Notes change file `file` of `device` refused (or, with nil, no longer), and why.
    func refuse(_ file: UInt64, of device: SyncDevice, because reason: String?) throws {
        guard let reason else {
            try db.execute(sql: "DELETE FROM syncRefused WHERE device = ? AND file = ?", arguments: [device.hex, Int64(file)])
            return
        }
        try db.execute(sql: "INSERT OR REPLACE INTO syncRefused (device, file, reason) VALUES (?, ?, ?)", arguments: [device.hex, Int64(file), reason])
    }

    /// The files of the inbox refused (``SyncInbox``), in place of those noted before.
    func refuseInbox(_ refused: [SyncInbox.Refusal]) throws {
        try db.execute(sql: "DELETE FROM syncInbox")
        for file in refused {
            try db.execute(sql: "INSERT INTO syncInbox (name, size, modified, reason) VALUES (?, ?, ?, ?)",
                           arguments: [file.name, file.size, file.modified.timeIntervalSince1970, file.reason])
        }
    }

    /// The files of the inbox refused at the last sync, by name.
    func inboxRefused() throws -> [SyncInbox.Refusal] {
        try Row.fetchAll(db, sql: "SELECT name, size, modified, reason FROM syncInbox ORDER BY name").map { row in
            SyncInbox.Refusal(name: row["name"], size: row["size"], modified: Date(timeIntervalSince1970: row["modified"]), reason: row["reason"])
        }
    }

    /// The change files refused, by device and number, and why.
    package func refused() throws -> [(device: SyncDevice, file: UInt64, reason: String)] {
        try Row.fetchAll(db, sql: "SELECT device, file, reason FROM syncRefused ORDER BY device, file").compactMap { row in
            SyncDevice(hex: row["device"]).map { ($0, UInt64(row["file"] as Int64), row["reason"]) }
        }
    }

    /// The markers of clip `id` as the changes merged make them: by id, with the order of the
    /// change that added each (``order(_:)``).
    func markersMade(of id: RecordingID) throws -> [(id: UUID, marker: ClipMarker, made: String)] {
        try Row.fetchAll(db, sql: "SELECT id, milliseconds, label, made FROM syncMarker WHERE clip = ?", arguments: [id.description])
            .compactMap { row in UUID(uuidString: row["id"]).map { ($0, ClipMarker(milliseconds: row["milliseconds"], label: row["label"]), row["made"]) } }
    }

    /// Takes marker `id` out of clip `clip`'s markers for good: of two markers at one
    /// millisecond, the one added first (every device drops the same one).
    func dropMarker(_ id: UUID, of clip: RecordingID) throws {
        try db.execute(sql: "DELETE FROM syncMarker WHERE clip = ? AND id = ?", arguments: [clip.description, id.uuidString])
        try removed(id, of: clip.description)
    }

    /// The subject of the Quick Play slots' stamps (a clip's are its id).
    static let quickPlay = "quickplay"

    private func stamp(_ subject: String, _ field: String, _ value: String?, _ change: SyncChange) throws {
        try db.execute(sql: """
            INSERT OR REPLACE INTO syncStamp (subject, field, value, milliseconds, counter, device, file, position)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [subject, field, value, change.time.milliseconds, Int64(change.time.counter), change.time.device.hex,
                             Int64(change.id.file), Int64(change.id.index)])
    }

    /// The value the folder was last told of each field of `subject` (`title`, `slot1`, ...),
    /// by field: a field it was told nothing of is not there; one told empty is nil.
    func values(of subject: String) throws -> [String: String?] {
        var values: [String: String?] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT field, value FROM syncStamp WHERE subject = ?"), arguments: [subject]) {
            values[row["field"]] = .some(row["value"])
        }
        return values
    }

    /// The media the folder was last told clip `id` has; nil when it was told nothing of the clip.
    func media(of id: RecordingID) throws -> SyncChange.Media? {
        guard let data = try Data.fetchOne(db, sql: "SELECT media FROM syncMedia WHERE clip = ?", arguments: [id.description]) else { return nil }
        return try SyncChange.decoder.decode(SyncChange.Media.self, from: data)
    }

    /// The add ids of each tag of clip `id` the folder was told of.
    func tagAdds(of id: RecordingID) throws -> [String: Set<UUID>] {
        var adds: [String: Set<UUID>] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT tag, id FROM syncTagAdd WHERE clip = ?", arguments: [id.description]) {
            if let add = UUID(uuidString: row["id"]) { adds[row["tag"], default: []].insert(add) }
        }
        return adds
    }

    /// The markers of clip `id` the folder was told of, by id.
    func markers(of id: RecordingID) throws -> [(id: UUID, marker: ClipMarker)] {
        try Row.fetchAll(db, sql: "SELECT id, milliseconds, label FROM syncMarker WHERE clip = ? ORDER BY milliseconds, id", arguments: [id.description])
            .compactMap { row in UUID(uuidString: row["id"]).map { ($0, ClipMarker(milliseconds: row["milliseconds"], label: row["label"])) } }
    }

    /// Clip `id`'s plays the folder was not told of (with `told`, every play: a folder the
    /// library joins again is told them by the ids they had), in time order; a play without an
    /// id is given one now.
    func plays(of id: RecordingID, told: Bool) throws -> [(id: UUID, play: PlayEvent)] {
        var ids: [Int64: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, syncID FROM playEvent WHERE recordingId = ? AND syncID IS NOT NULL", arguments: [id.description]) {
            ids[row["id"]] = row["syncID"]
        }
        return try PlayEvent.filter(PlayEvent.Columns.recordingId == id.description).order(PlayEvent.Columns.playedAt, Column.rowID).fetchAll(db)
            .compactMap { play in
                if let held = play.id.flatMap({ ids[$0] }) { return told ? UUID(uuidString: held).map { ($0, play) } : nil }
                let playID = UUID()
                try db.execute(sql: "UPDATE playEvent SET syncID = ? WHERE id = ?", arguments: [playID.uuidString, play.id])
                return (playID, play)
            }
    }

    /// Stops syncing: forgets the device, its outbox, what was merged and what the folder was
    /// told of each field and media. The ids of tag adds, markers and plays stay (and the
    /// tombstones, ids only), so that joining a folder again tells them by the ids they had: a
    /// machine that has them already does not count them twice. Returns how many change files
    /// were not sent.
    package func leave() throws -> Int {
        let unsent = try outbox().count
        for table in ["syncDevice", "syncOutbox", "syncMerged", "syncStamp", "syncMedia", "syncRefused", "syncInbox", "syncBlob"] {
            try db.execute(sql: "DELETE FROM \(table)")
        }
        return unsent
    }
}
