import Foundation
import GRDB

/// Reads and writes recording rows. Every write is one (immediate) transaction, so several
/// processes may use the same library at once without losing an update.
package struct RecordingRepository: Sendable {
    /// How many recordings Quick Play offers.
    package static let quickPlayCount = 3

    let database: AppDatabase

    /// Why nothing may be written: a newer cravey wrote the library. Nil when writes may go.
    package var refusal: CraveyError? { database.newer }

    /// The database's identity, which a `delete-all` journal names.
    package func libraryID() throws -> String? {
        try database.libraryID()
    }

    /// What SQLite finds wrong with the database file; empty when it is sound.
    package func integrityProblems() throws -> [String] {
        try database.integrityProblems()
    }

    /// Called inside every write transaction that changes a clip, with the clip and its plays as
    /// they will be once it commits, before it does: the library keeps a copy of each clip's
    /// words beside its media (``FileStorageManager``), so a damaged database costs none of them.
    /// Throwing rolls the change back.
    private let keeper: (@Sendable (Recording, [PlayEvent]) throws -> Void)?

    /// Runs a write holding the library's writers' lock, taken before the transaction begins:
    /// a clip's copy is written inside the transaction, and a `delete`, `delete-all` or repair
    /// (which hold the lock) must never see a copy half-written or have its clip changed under it.
    private let exclusive: (@Sendable (() throws -> Void) throws -> Void)?

    package init(database: AppDatabase, keeper: (@Sendable (Recording, [PlayEvent]) throws -> Void)? = nil,
                 exclusive: (@Sendable (() throws -> Void) throws -> Void)? = nil) {
        self.database = database
        self.keeper = keeper
        self.exclusive = exclusive
    }

    /// One write transaction, under the writers' lock when the library has one.
    private func write<T>(_ updates: (Database) throws -> T) throws -> T {
        guard let exclusive else { return try database.write(updates) }
        var result: T?
        try exclusive { result = try database.write(updates) }
        guard let result else { throw CraveyError(.other, "A write of the library returned nothing.") }
        return result
    }

    /// Inserts a row, with the plays it had (a clip restored from its own copy). `alreadyKept`:
    /// the clip's copy was written just before, as it is here (a save writes it before the
    /// media takes its name), so the keeper is not called again.
    package func insert(_ recording: Recording, plays: [PlayEvent] = [], alreadyKept: Bool = false) throws {
        try write { db in
            try recording.insert(db)
            for var play in plays {
                play.id = nil
                try play.insert(db)
            }
            if !alreadyKept { _ = try kept(recording.id, in: db) }
        }
    }

    /// Hands the row `id` and its plays, as they now are in this transaction, to the keeper, and
    /// returns the row; `.notFound` when it is gone.
    private func kept(_ id: UUID, in db: Database) throws -> Recording {
        guard let recording = try Recording.fetchOne(db, key: id) else {
            throw CraveyError(.notFound, "The recording \(id.uuidString.lowercased()) is no longer in the library.")
        }
        if let keeper {
            let events = try PlayEvent.filter(PlayEvent.Columns.recordingId == id.uuidString.lowercased())
                .order(PlayEvent.Columns.playedAt).fetchAll(db)
            try keeper(recording, events)
        }
        return recording
    }

    package func fetchAll(sortedBy sort: RecordingSort = .recent) throws -> [Recording] {
        try database.read { db in
            try Recording.all().order(sort.ordering).fetchAll(db)
        }
    }

    /// The most played recordings: by play count, then last played, then newest.
    package func quickPlay() throws -> [Recording] {
        try database.read { db in
            try Recording.all().order(RecordingSort.mostPlayed.ordering).limit(Self.quickPlayCount).fetchAll(db)
        }
    }

    package func fetch(id: UUID) throws -> Recording? {
        try database.read { db in try Recording.fetchOne(db, key: id) }
    }

    /// The one recording whose id starts with `prefix` (as git resolves abbreviated hashes).
    /// Throws `.notFound` for none and `.invalidInput` when several match.
    package func fetch(idPrefix prefix: String) throws -> Recording {
        let prefix = prefix.lowercased()
        guard !prefix.isEmpty, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw CraveyError(.invalidInput, "'\(prefix)' is not a recording id: ids are UUIDs.", advice: .listRecordings)
        }
        let matches = try database.read { db in
            try Recording.filter(Recording.Columns.id.like("\(prefix)%")).limit(2).fetchAll(db)
        }
        switch matches.count {
        case 0: throw CraveyError(.notFound, "No recording has an id starting with '\(prefix)'.", advice: .listRecordings)
        case 1: return matches[0]
        default: throw CraveyError(.invalidInput, "'\(prefix)' matches several recordings. Give more characters of the id.")
        }
    }

    package func count() throws -> Int {
        try database.read { db in try Recording.fetchCount(db) }
    }

    /// Records a play: the event, `playCount + 1` and `lastPlayedAt`, in one transaction.
    @discardableResult
    package func recordPlay(of id: UUID, secondsListened: Double, completed: Bool,
                           at date: Date = Date()) throws -> Recording {
        try write { db in
            try update(id, in: db, [
                Recording.Columns.playCount.set(to: Recording.Columns.playCount + 1),
                Recording.Columns.lastPlayedAt.set(to: date),
            ])
            var event = PlayEvent(recordingId: id, playedAt: date, secondsListened: secondsListened, completed: completed)
            try event.insert(db)
            return try kept(id, in: db)
        }
    }

    /// Every row with its plays, newest first, read in one snapshot (a backup's).
    package func everything() throws -> (libraryID: String?, clips: [(Recording, [PlayEvent])]) {
        try database.read { db in
            let recordings = try Recording.all().order(RecordingSort.recent.ordering).fetchAll(db)
            let events = Swift.Dictionary(grouping: try PlayEvent.order(PlayEvent.Columns.playedAt).fetchAll(db), by: \.recordingId)
            let id = try? String.fetchOne(db, sql: "SELECT value FROM libraryInfo WHERE key = 'libraryID'")
            return (id ?? nil, recordings.map { ($0, events[$0.id] ?? []) })
        }
    }

    package func playEvents(of id: UUID) throws -> [PlayEvent] {
        try database.read { db in
            try PlayEvent.filter(PlayEvent.Columns.recordingId == id.uuidString.lowercased())
                .order(PlayEvent.Columns.playedAt).fetchAll(db)
        }
    }

    /// Writes title, notes and purpose only, so a play counted meanwhile by another process is
    /// never overwritten. Throws `.notFound` when the row is gone.
    package func updateMetadata(of id: UUID, title: String, notes: String?, purpose: RecordingPurpose?) throws -> Recording {
        try write { db in
            try update(id, in: db, [
                Recording.Columns.title.set(to: title),
                Recording.Columns.notes.set(to: notes),
                Recording.Columns.purpose.set(to: purpose?.rawValue),
            ])
            return try kept(id, in: db)
        }
    }

    /// Changes the row `id`; throws `.notFound` when the row is gone.
    private func update(_ id: UUID, in db: Database, _ assignments: [ColumnAssignment]) throws {
        guard try Recording.filter(key: id).updateAll(db, assignments) == 1 else {
            throw CraveyError(.notFound, "The recording \(id.uuidString.lowercased()) is no longer in the library.")
        }
    }

    /// Stores a clip's loudness measurement (replacing any earlier one) and returns the row as it
    /// now is. Throws `.notFound` when the row is gone.
    @discardableResult
    package func updateLoudness(of id: UUID, to loudness: LoudnessMeasurement) throws -> Recording {
        try write { db in
            try update(id, in: db, [
                Recording.Columns.loudnessIntegrated.set(to: loudness.integrated),
                Recording.Columns.loudnessTruePeak.set(to: loudness.truePeak),
            ])
            return try kept(id, in: db)
        }
    }

    /// Updates the stored size of a file, for `doctor --repair`.
    package func updateFileSize(of id: UUID, to size: Int64) throws {
        try write { db in
            try update(id, in: db, [Recording.Columns.fileSize.set(to: size)])
            _ = try kept(id, in: db)
        }
    }

    /// Stores the path of a recording's thumbnail and returns the row as it now is. Throws
    /// `.notFound` when the row is gone.
    @discardableResult
    package func updateThumbnail(of id: UUID, to path: String) throws -> Recording {
        try write { db in
            try update(id, in: db, [Recording.Columns.thumbnailPath.set(to: path)])
            return try kept(id, in: db)
        }
    }

    /// Forgets a recording's thumbnail, for `doctor --repair` when its stored path is unsafe.
    package func removeThumbnail(of id: UUID) throws {
        try write { db in
            try update(id, in: db, [Recording.Columns.thumbnailPath.set(to: nil)])
            _ = try kept(id, in: db)
        }
    }

    /// Deletes a row and its play events; returns what was deleted, to put back if needed.
    package func delete(id: UUID) throws -> (Recording, [PlayEvent])? {
        try write { db in
            guard let recording = try Recording.fetchOne(db, key: id) else { return nil }
            let events = try PlayEvent.filter(PlayEvent.Columns.recordingId == id.uuidString.lowercased()).fetchAll(db)
            try recording.delete(db)
            return (recording, events)
        }
    }

    /// Puts back rows (and their play events) removed by `delete` or `deleteAll`.
    package func restore(_ rows: [(Recording, [PlayEvent])]) throws {
        try write { db in
            for (recording, events) in rows {
                try recording.insert(db, onConflict: .ignore)
                for var event in events { try event.insert(db, onConflict: .ignore) }
                _ = try kept(recording.id, in: db)
            }
        }
    }

    /// Deletes every row and play event in one transaction. Returns what was deleted.
    package func deleteAll() throws -> [(Recording, [PlayEvent])] {
        try write { db in
            let recordings = try Recording.fetchAll(db)
            let events = Swift.Dictionary(grouping: try PlayEvent.fetchAll(db), by: \.recordingId)
            try PlayEvent.deleteAll(db)
            try Recording.deleteAll(db)
            return recordings.map { ($0, events[$0.id] ?? []) }
        }
    }

    /// Moves the write-ahead log into the database file and truncates it, so deleted text
    /// lingers in neither (secure_delete clears it from the file's free pages).
    package func checkpoint() throws {
        try database.checkpoint()
    }
}

extension RecordingSort {
    var ordering: [any SQLOrderingTerm] {
        typealias Columns = Recording.Columns
        switch self {
        case .recent:
            return [Columns.createdAt.desc]
        case .mostPlayed:
            return [Columns.playCount.desc, Columns.lastPlayedAt.desc, Columns.createdAt.desc]
        case .title:
            return [Columns.title.collating(.localizedCaseInsensitiveCompare), Columns.createdAt.desc]
        }
    }
}
