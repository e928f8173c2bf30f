import Foundation
import GRDB

/// The library's rows: recordings and their plays (which make Quick Play), as GRDB requests on a
/// `Database`. It calls nobody back and takes no lock: the transaction it runs in is the caller's
/// (``LibraryStore/read(_:)`` or ``LibraryStore/write(_:)``), and so are the files.
package struct RecordingRepository {
    /// How many recordings Quick Play offers.
    package static let quickPlayCount = 3

    private let db: Database

    package init(_ db: Database) {
        self.db = db
    }

    // MARK: - Reading

    /// Every recording that can be read (with `tag`, those tagged so), in `sort`'s order; a
    /// row whose id is no UUID (a database edited by hand) is left out, and
    /// ``unreadableRows()`` names it.
    package func recordings(sortedBy sort: RecordingSort = .recent, tagged tag: String? = nil) throws -> [Recording] {
        let request = tag.map { Recording.filter(ClipTags.tagged($0)) } ?? Recording.all()
        // Every row reads, almost always: GRDB's fetch, row by row only when one does not.
        if let recordings = try? request.order(sort.ordering).fetchAll(db) { return recordings }
        var recordings: [Recording] = []
        let rows = try Row.fetchCursor(db, request.order(sort.ordering))
        while let row = try rows.next() {
            if let recording = try? Recording(row: row) { recordings.append(recording) }
        }
        return recordings
    }

    // MARK: - A page at a time

    /// The recordings whose title, notes or purpose contain `text` (letters of the ASCII range
    /// in either case, as SQLite's LIKE compares; every recording for ""), in `sort`'s order:
    /// `limit` of them from the `offset`th; with `rowIDs`, only among the rows with those SQLite
    /// rowids (those a narrower filter matched, see ``rowIDs(containing:among:atMost:)``). A
    /// screen reads what it shows this way, never the whole library; a row that cannot be read (an
    /// id that is no UUID) is left out, as in ``recordings(sortedBy:)``.
    package func recordings(sortedBy sort: RecordingSort, containing text: String, among rowIDs: [Int64]? = nil,
                            offset: Int, limit: Int) throws -> [Recording] {
        var recordings: [Recording] = []
        let request = Self.containing(text, among: rowIDs).order(sort.ordering).limit(max(limit, 0), offset: max(offset, 0))
        let rows = try Row.fetchCursor(db, request)
        while let row = try rows.next() {
            if let recording = try? Recording(row: row) { recordings.append(recording) }
        }
        return recordings
    }

    /// How many recordings contain `text` (see ``recordings(sortedBy:containing:among:offset:limit:)``).
    package func count(containing text: String, among rowIDs: [Int64]? = nil) throws -> Int {
        try Self.containing(text, among: rowIDs).fetchCount(db)
    }

    /// The rowids of the recordings containing `text` (among `rowIDs`, when given), when there
    /// are at most `limit` of them; nil when there are more. A filter typed further can only
    /// match fewer, so the next keystroke looks among these alone.
    package func rowIDs(containing text: String, among rowIDs: [Int64]? = nil, atMost limit: Int) throws -> [Int64]? {
        let found = try Int64.fetchAll(db, Self.containing(text, among: rowIDs).select(Column.rowID, as: Int64.self).limit(limit + 1))
        return found.count > limit ? nil : found
    }

    /// Where the recording `id` stands among those containing `text` in `sort`'s order (0 the
    /// first), or nil when it is not among them; read by walking their ids, one at a time.
    package func position(of id: RecordingID, sortedBy sort: RecordingSort, containing text: String) throws -> Int? {
        let wanted = id.description
        let ids = try String.fetchCursor(db, Self.containing(text).order(sort.ordering).select(Recording.Columns.id, as: String.self))
        var position = 0
        while let next = try ids.next() {
            if next == wanted { return position }
            position += 1
        }
        return nil
    }

    /// The recordings whose title, notes or purpose contain `text`, `%`, `_` and `\` taken as
    /// themselves, or whose title, notes or words hold each of its words as a prefix
    /// (``ClipSearch/filterExpression(_:)``: accents folded); each word of it that starts with
    /// `#` (`#calm`) is a tag they have instead.
    /// A filter longer than ``ClipSearch/maxQueryLength`` matches no clip (the home screen takes
    /// none, and `cravey search` refuses one).
    private static func containing(_ text: String, among rowIDs: [Int64]? = nil) -> QueryInterfaceRequest<Recording> {
        guard text.count <= ClipSearch.maxQueryLength else { return Recording.none() }
        var all = rowIDs.map { Recording.filter($0.contains(Column.rowID)) } ?? Recording.all()
        var text = text
        if text.contains("#") {
            var words: [Substring] = []
            for word in text.split(separator: " ", omittingEmptySubsequences: false) {
                guard word.count > 1, word.first == "#" else {
                    words.append(word)
                    continue
                }
                all = all.filter(ClipTags.tagged(ClipTags.folded(word.dropFirst())))
            }
            text = words.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        }
        guard !text.isEmpty else { return all }
        var escaped = ""
        for character in text {
            if ["%", "_", "\\"].contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        let pattern = "%\(escaped)%"
        typealias Columns = Recording.Columns
        // (SQLite refuses a LIKE pattern over 50,000 bytes: 1,000 characters of many accents each.)
        var matches = pattern.utf8.count > 50_000 ? false.sqlExpression
            : Columns.title.like(pattern, escape: "\\") || Columns.notes.like(pattern, escape: "\\") || Columns.purpose.like(pattern, escape: "\\")
        // And every word of it in the word index, as a prefix: accents folded, the words said.
        if let expression = ClipSearch.filterExpression(text) {
            matches = matches || SQL("rowid IN (SELECT rowid FROM clipSearch WHERE clipSearch MATCH \(expression))").sqlExpression
        }
        return all.filter(matches)
    }

    /// The ids of rows that cannot be read as a recording (an id that is no UUID).
    package func unreadableRows() throws -> [String] {
        try String.fetchAll(db, sql: "SELECT id FROM recording").filter { Recording.uuid($0) == nil }
    }

    /// The ids of rows whose stored numbers no clip has: a length that is infinite, negative or
    /// past ``Recording/Bounds/duration``, a play count that is not the number of its plays (a
    /// negative one, or 2^63-1 that would lead Quick Play for good), a loudness out of its bounds
    /// (which reads as not measured).
    package func rowsWithImpossibleNumbers() throws -> Set<String> {
        let (duration, integrated, peak) = (Recording.Bounds.duration, Recording.Bounds.integratedLoudness, Recording.Bounds.truePeak)
        return try String.fetchSet(db, sql: """
            SELECT id FROM recording WHERE NOT (duration BETWEEN ? AND ?) OR playCount < 0
                OR playCount != (SELECT count(*) FROM playEvent WHERE playEvent.recordingId = recording.id)
                OR (loudnessIntegrated IS NOT NULL AND loudnessIntegrated > -9e999 AND NOT (loudnessIntegrated BETWEEN ? AND ?))
                OR (loudnessTruePeak IS NOT NULL AND loudnessTruePeak > -9e999 AND NOT (loudnessTruePeak BETWEEN ? AND ?))
            """, arguments: [duration.lowerBound, duration.upperBound, integrated.lowerBound, integrated.upperBound,
                             peak.lowerBound, peak.upperBound])
    }

    /// Quick Play: each slot's pinned recording, and the slots no recording is pinned to filled
    /// with the most played of the others (by play count, then last played, then newest), in
    /// the slots' order. With fewer recordings than slots, a pinned one moves up to the first
    /// slot left empty before it.
    /// With `tag`, only the recordings tagged so take part.
    package func quickPlay(tagged tag: String? = nil) throws -> [Recording] {
        let among = tag.map { Recording.filter(ClipTags.tagged($0)) } ?? Recording.all()
        let pinned = try among.filter(Recording.Columns.pinnedSlot != nil).fetchAll(db)
        var others = try among.filter(Recording.Columns.pinnedSlot == nil).order(RecordingSort.mostPlayed.ordering)
            .limit(Self.quickPlayCount - pinned.count).fetchAll(db)[...]
        return (1...Self.quickPlayCount).compactMap { slot in
            pinned.first { $0.pinnedSlot == slot } ?? others.popFirst()
        }
    }

    package func recording(_ id: RecordingID) throws -> Recording? {
        try Recording.fetchOne(db, key: id)
    }

    /// The one recording whose id starts with `prefix` (as git resolves abbreviated hashes).
    /// Throws `.notFound` for none and `.invalidInput` when several match.
    package func recording(matching prefix: String) throws -> Recording {
        let prefix = prefix.lowercased()
        guard !prefix.isEmpty, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw CraveyError(.invalidInput, "\(CraveyError.quoted(prefix)) is not a recording id: ids are UUIDs.", advice: .listRecordings)
        }
        let matches = try Recording.filter(Recording.Columns.id.like("\(prefix)%")).limit(2).fetchAll(db)
        switch matches.count {
        case 0: throw CraveyError(.notFound, "No recording has an id starting with '\(prefix)'.", advice: .listRecordings)
        case 1: return matches[0]
        default: throw CraveyError(.invalidInput, "'\(prefix)' matches several recordings. Give more characters of the id.")
        }
    }

    package func count() throws -> Int {
        try Recording.fetchCount(db)
    }

    /// The plays of a recording, oldest first.
    package func plays(of id: RecordingID) throws -> [PlayEvent] {
        try PlayEvent.filter(PlayEvent.Columns.recordingId == id.description).order(PlayEvent.Columns.playedAt).fetchAll(db)
    }

    /// Every row with its plays, newest first (a backup's snapshot).
    package func everything() throws -> [(Recording, [PlayEvent])] {
        let recordings = try Recording.all().order(RecordingSort.recent.ordering).fetchAll(db)
        let plays = Dictionary(grouping: try PlayEvent.order(PlayEvent.Columns.playedAt).fetchAll(db), by: \.recordingId)
        return recordings.map { ($0, plays[$0.id] ?? []) }
    }

    /// The recordings whose SQLite rowids are `rowIDs`, and those the plays with these ids belong
    /// to: what a transaction changed.
    package func recordings(rowIDs: Set<Int64>, playIDs: Set<Int64>) throws -> [Recording] {
        guard !rowIDs.isEmpty || !playIDs.isEmpty else { return [] }
        let played = try String.fetchSet(db, PlayEvent.filter(keys: playIDs).select(PlayEvent.Columns.recordingId, as: String.self))
        return try Recording.filter(rowIDs.contains(Column.rowID) || played.contains(Recording.Columns.id)).fetchAll(db)
    }

    /// The database's identity, which a `delete-all` journal names.
    package func libraryID() throws -> String {
        try String.fetchOne(db, sql: "SELECT value FROM libraryInfo WHERE key = 'libraryID'") ?? ""
    }

    // MARK: - Changing

    /// Inserts a row with the plays it had (a clip restored from its record).
    package func insert(_ recording: Recording, plays: [PlayEvent] = []) throws {
        try recording.insert(db)
        for var play in plays {
            play.id = nil
            play.recordingId = recording.id
            try play.insert(db)
        }
    }

    /// Records a play: the event, `playCount + 1` and `lastPlayedAt`. Returns the row as it now
    /// is; `.notFound` when it is gone.
    @discardableResult
    package func recordPlay(of id: RecordingID, secondsListened: Double, completed: Bool, at date: Date = Date()) throws -> Recording {
        try update(id, [
            Recording.Columns.playCount.set(to: Recording.Columns.playCount + 1),
            Recording.Columns.lastPlayedAt.set(to: Recording.storedText(date)),
        ])
        var play = PlayEvent(recordingId: id, playedAt: date, secondsListened: secondsListened, completed: completed)
        try play.insert(db)
        return try existing(id)
    }

    /// Writes title, notes and purpose only, so that a play counted by another process is never
    /// overwritten. `.notFound` when the row is gone.
    @discardableResult
    package func updateWords(of id: RecordingID, title: String, notes: String?, purpose: RecordingPurpose?) throws -> Recording {
        try update(id, [
            Recording.Columns.title.set(to: title),
            Recording.Columns.notes.set(to: notes),
            Recording.Columns.purpose.set(to: purpose?.rawValue),
        ])
        return try existing(id)
    }

    /// Stores a clip's loudness measurement, replacing any earlier one. `.notFound` when the row
    /// is gone.
    @discardableResult
    package func updateLoudness(of id: RecordingID, to loudness: LoudnessMeasurement) throws -> Recording {
        try update(id, [
            Recording.Columns.loudnessIntegrated.set(to: loudness.integrated),
            Recording.Columns.loudnessTruePeak.set(to: loudness.truePeak),
        ])
        return try existing(id)
    }

    /// Stores what a recording's new media is (a trim, a clean-up): its length, size, loudness and
    /// thumbnail, and its markers moved with the sound, in one row write. Returns the row as it
    /// now is; `.notFound` when it is gone.
    @discardableResult
    package func updateMedia(of id: RecordingID, duration: Double, fileSize: Int64, loudness: LoudnessMeasurement?,
                             thumbnailPath: String?, markers: [ClipMarker]) throws -> Recording {
        try update(id, [
            Recording.Columns.markers.set(to: ClipMarker.stored(markers)),
            Recording.Columns.duration.set(to: duration),
            Recording.Columns.fileSize.set(to: fileSize),
            Recording.Columns.loudnessIntegrated.set(to: loudness?.integrated),
            Recording.Columns.loudnessTruePeak.set(to: loudness?.truePeak),
            Recording.Columns.thumbnailPath.set(to: thumbnailPath),
        ])
        return try existing(id)
    }

    /// Stores the size of a recording's file.
    package func updateFileSize(of id: RecordingID, to size: Int64) throws {
        try update(id, [Recording.Columns.fileSize.set(to: size)])
    }

    /// Stores the path of a recording's media file.
    package func updateFilePath(of id: RecordingID, to path: String) throws {
        try update(id, [Recording.Columns.filePath.set(to: path)])
    }

    /// Stores (or, with nil, forgets) the path of a recording's thumbnail.
    @discardableResult
    package func updateThumbnail(of id: RecordingID, to path: String?) throws -> Recording {
        try update(id, [Recording.Columns.thumbnailPath.set(to: path)])
        return try existing(id)
    }

    /// Deletes a row and its plays; returns what was deleted, nil when there was no row.
    package func delete(_ id: RecordingID) throws -> (Recording, [PlayEvent])? {
        guard let recording = try recording(id) else { return nil }
        let plays = try plays(of: id)
        try recording.delete(db)
        return (recording, plays)
    }

    /// Deletes every row and play. Returns what was deleted.
    package func deleteAll() throws -> [(Recording, [PlayEvent])] {
        let deleted = try everything()
        try PlayEvent.deleteAll(db)
        try Recording.deleteAll(db)
        return deleted
    }

    /// Changes the row `id`; `.notFound` when it is gone.
    private func update(_ id: RecordingID, _ assignments: [ColumnAssignment]) throws {
        guard try Recording.filter(key: id).updateAll(db, assignments) == 1 else { throw Self.gone(id) }
    }

    private func existing(_ id: RecordingID) throws -> Recording {
        guard let recording = try recording(id) else { throw Self.gone(id) }
        return recording
    }

    private static func gone(_ id: RecordingID) -> CraveyError {
        CraveyError(.notFound, "The recording \(id.description) is no longer in the library.")
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
