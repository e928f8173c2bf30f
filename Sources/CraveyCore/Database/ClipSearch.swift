import Foundation
import GRDB

/// The library's word index: SQLite FTS5 over each clip's title, notes and transcript
/// (`cravey search`, the home screen's `/` filter), accents folded (`unicode61 remove_diacritics 2`:
/// "é" finds "É" and "e") and prefixes (`crav*`).
///
/// The index is derived, one row per clip under the clip's own rowid (the table `clipSearch`:
/// `title`, `notes`, `words`, and `times`, unindexed, the start of each word in seconds). Triggers
/// on `recording` keep the title and notes in step in the transaction that changes them (an
/// insert, an edit, a delete); the words follow the clip's part that is searched
/// (``ClipFiles/Part/isSearched``, the transcript) wherever the store's transaction writes or
/// removes it (``StoreTransaction``). A transaction that lets words go (a delete, a transcript
/// dropped) merges the index whole before its commit (``forgetDeleted()``), so no segment keeps
/// a deleted word: SQLite 3.40 has no FTS5 secure-delete. A repair remakes it (``remake(words:)``).
package struct ClipSearch {
    private let db: Database

    package init(_ db: Database) {
        self.db = db
    }

    /// The table's name.
    static let table = "clipSearch"

    /// Creates the index and its triggers and fills it from the rows (the words are left to
    /// whoever can read the clips' transcripts: ``LibraryStore``, or a repair); a migration's work.
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE VIRTUAL TABLE clipSearch USING fts5(title, notes, words, times UNINDEXED,
                tokenize = 'unicode61 remove_diacritics 2');
            CREATE TRIGGER clipSearch_insert AFTER INSERT ON recording BEGIN
                INSERT INTO clipSearch (rowid, title, notes, words, times) VALUES (new.rowid, new.title, coalesce(new.notes, ''), '', '');
            END;
            CREATE TRIGGER clipSearch_update AFTER UPDATE OF title, notes ON recording BEGIN
                UPDATE clipSearch SET title = new.title, notes = coalesce(new.notes, '') WHERE rowid = new.rowid;
            END;
            CREATE TRIGGER clipSearch_delete AFTER DELETE ON recording BEGIN
                DELETE FROM clipSearch WHERE rowid = old.rowid;
            END;
            INSERT INTO clipSearch (rowid, title, notes, words, times) SELECT rowid, title, coalesce(notes, ''), '', '' FROM recording;
            """)
    }

    // MARK: - Keeping it in step

    /// Sets the words clip `id` is searched by, and their times, to `transcript`'s (none: nil).
    /// Returns whether words it had went.
    @discardableResult
    package func setWords(_ transcript: Transcript?, of id: RecordingID) throws -> Bool {
        let row = try Row.fetchOne(db, sql: "SELECT s.words, s.times FROM clipSearch s JOIN recording r ON r.rowid = s.rowid WHERE r.id = ?",
                                   arguments: [id.description])
        let (had, hadTimes): (String, String) = (row?[0] ?? "", row?[1] ?? "")
        let (words, times) = Self.columns(transcript)
        // The same words at other times (a trim that kept them all) move too.
        guard words != had || times != hadTimes else { return false }
        try db.execute(sql: "UPDATE clipSearch SET words = ?, times = ? WHERE rowid = (SELECT rowid FROM recording WHERE id = ?)",
                       arguments: [words, times, id.description])
        return !had.isEmpty && words != had
    }

    /// The `words` and `times` columns of a transcript: its words, one a line (a word holds no
    /// control character, so the line a match is on is the word's index), and their starts, each
    /// in ``timeWidth`` characters (so SQL finds the nth at `n * timeWidth`: ``firstMarkedTime``).
    static func columns(_ transcript: Transcript?) -> (words: String, times: String) {
        guard let transcript, !transcript.words.isEmpty else { return ("", "") }
        return (transcript.words.map(\.text).joined(separator: "\n"),
                transcript.words.map { String(format: "%9.2f", min($0.start, 999_999)) }.joined())
    }

    /// The characters of a word's start in the `times` column: up to 999,999.99 s, 11 days.
    static let timeWidth = 9

    /// SQL for when the first word marked in `highlighted` (the `words` column highlighted,
    /// ``markStart`` before each match) is said, read from `times`; NULL when none is marked.
    /// Counted in SQLite, so only a number leaves it: the words' line breaks before the mark are
    /// the word's index.
    static func firstMarkedTime(_ before: String, times: String) -> String {
        """
        CASE WHEN \(before) = '' THEN NULL ELSE CAST(substr(\(times),
            \(timeWidth) * (length(\(before)) - length(replace(\(before), char(10), ''))) + 1, \(timeWidth)) AS REAL) END
        """
    }

    /// Merges the index into one segment, which leaves out every deleted row's terms: after it,
    /// no page of the index holds a word that was deleted (and `secure_delete` zeroes the pages
    /// freed). SQLite 3.40 has no FTS5 secure-delete; this is its way. The corresponding FTS5
    /// command is `optimize`.
    package func forgetDeleted() throws {
        try db.execute(sql: "INSERT INTO clipSearch (clipSearch) VALUES ('optimize')")
    }

    /// Whether the index holds exactly the rows' titles and notes, and `words` (a clip's words,
    /// by id; nil for none) as its words.
    package func isInStep(words: [RecordingID: Transcript]) throws -> Bool {
        guard try db.tableExists(Self.table) else { return false }
        let stale = try Int.fetchOne(db, sql: """
            SELECT (SELECT count(*) FROM recording r LEFT JOIN clipSearch s ON s.rowid = r.rowid
                    WHERE s.rowid IS NULL OR s.title IS NOT r.title OR s.notes IS NOT coalesce(r.notes, ''))
                 + (SELECT count(*) FROM clipSearch s LEFT JOIN recording r ON r.rowid = s.rowid WHERE r.rowid IS NULL)
            """) ?? 0
        guard stale == 0 else { return false }
        let rows = try Row.fetchCursor(db, sql: "SELECT r.id, s.words, s.times FROM recording r JOIN clipSearch s ON s.rowid = r.rowid")
        while let row = try rows.next() {
            let id: String = row[0]
            let expected = Self.columns(RecordingID(id).flatMap { words[$0] })
            guard expected.words == row[1], expected.times == row[2] else { return false }
        }
        return true
    }

    /// Makes the index again, whole (its table and triggers too, if they are gone), from the rows
    /// and `words`, merged into one segment.
    package func remake(words: [RecordingID: Transcript]) throws {
        for trigger in ["insert", "update", "delete"] { try db.execute(sql: "DROP TRIGGER IF EXISTS clipSearch_\(trigger)") }
        try db.execute(sql: "DROP TABLE IF EXISTS clipSearch")
        try Self.create(db)
        for (id, transcript) in words { try setWords(transcript, of: id) }
        try forgetDeleted()
    }

    // MARK: - Searching

    /// The clips whose title, notes or words match `query` (FTS5's syntax: words, "a phrase",
    /// `crav*`, OR, NOT, NEAR), best first (FTS5's `bm25` rank), at most `limit` from the
    /// `offset`th, each with its best match (``LibraryPage/Match``: the snippet's matches between
    /// `char(1)` and `char(2)`). A query that is empty or not FTS5 syntax is refused with
    /// `.invalidInput`.
    package func search(_ query: String, offset: Int = 0, limit: Int? = nil) throws -> [(recording: Recording, match: LibraryPage.Match)] {
        let fields = Recording.fields.map { "r.\($0.key.rawValue)" } + ["r.loudnessIntegrated", "r.loudnessTruePeak"]
        // FTS5 takes the ORDER BY rank (bm25) and the LIMIT itself, so the snippets and highlights
        // are made for the rows returned alone (a rowid IN the best, as a second MATCH, made FTS5
        // look each row up again: 4 s for 7,500 matches at 10,000 clips); each highlight is made
        // once (MATERIALIZED), and only its words before the first mark are looked at.
        let sql = """
            WITH found AS MATERIALIZED (
                SELECT rowid AS row, rank, replace(snippet(clipSearch, -1, char(1), char(2), '…', 10), char(10), ' ') AS snippet,
                       instr(highlight(clipSearch, 0, char(1), char(2)), char(1)) > 0 AS inTitle,
                       highlight(clipSearch, 2, char(1), char(2)) AS words, times
                FROM clipSearch WHERE clipSearch MATCH :query ORDER BY rank LIMIT :limit OFFSET :offset),
            marked AS MATERIALIZED (
                SELECT row, rank, snippet, inTitle, times, substr(words, 1, instr(words, char(1))) AS before FROM found)
            SELECT \(fields.joined(separator: ", ")), m.snippet, m.inTitle, \(Self.firstMarkedTime("m.before", times: "m.times"))
            FROM marked m JOIN recording r ON r.rowid = m.row
            ORDER BY m.rank
            """
        let rows = try matching(query) { expression in
            try Row.fetchAll(db, sql: sql, arguments: ["query": expression, "limit": limit ?? -1, "offset": max(offset, 0)])
        }
        let count = fields.count
        return rows.compactMap { row in
            guard let recording = try? Recording(row: row) else { return nil }
            let inTitle: Bool = row[count + 1], at: Double? = row[count + 2]
            return (recording, LibraryPage.Match(field: inTitle ? .title : at != nil ? .words : .notes, snippet: row[count], at: at))
        }
    }

    /// How many clips `query` finds (see ``search(_:offset:limit:)``).
    package func count(_ query: String) throws -> Int {
        try matching(query) { expression in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM clipSearch WHERE clipSearch MATCH ?", arguments: [expression]) ?? 0
        }
    }

    /// Runs `fetch` with the FTS5 expression of `query` (``expression(_:)``); where the numbers'
    /// groups are not what the query's own syntax takes, with the query as typed. A query SQLite
    /// refuses either way is refused with `.invalidInput`, naming it.
    private func matching<T>(_ query: String, _ fetch: (String) throws -> T) throws -> T {
        let expression = try Self.expression(query)
        do {
            return try fetch(expression)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR && expression != query {
            do {
                return try fetch(query)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
                throw Self.refusal(query, error)
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            throw Self.refusal(query, error)
        }
    }

    // MARK: - The home screen's filter

    /// The FTS5 expression for the home screen's filter `text`: each of its words (but `#tag`s)
    /// as a prefix, all of them; nil when it holds no word, or a word of one character (a prefix
    /// of one letter is most of the index: 60 ms at 10,000 clips with transcripts, against 16 ms
    /// for a whole frame; the title's and notes' match is the filter's own then). Typed text is
    /// never query syntax.
    package static func filterExpression(_ text: String) -> String? {
        let words = text.split(whereSeparator: \.isWhitespace).filter { word in
            word.first != "#" && word.unicodeScalars.contains { CharacterSet.alphanumerics.contains($0) }
        }
        guard !words.isEmpty, words.allSatisfy({ $0.count > 1 }) else { return nil }
        return words.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"*" }.joined(separator: " ")
    }

    /// Which of the clips `ids` hold the words of the filter `text` in their transcripts, each
    /// with its snippet and when the first is said.
    package func spoken(in ids: [RecordingID], matching text: String) throws -> [RecordingID: LibraryPage.Match] {
        guard !ids.isEmpty, let expression = Self.filterExpression(text) else { return [:] }
        let rows = try Row.fetchAll(db, sql: """
            WITH found AS MATERIALIZED (
                SELECT r.id, replace(snippet(clipSearch, 2, char(1), char(2), '…', 5), char(10), ' ') AS snippet, s.times,
                       highlight(clipSearch, 2, char(1), char(2)) AS words
                FROM clipSearch s JOIN recording r ON r.rowid = s.rowid
                WHERE clipSearch MATCH ? AND r.id IN (\(databaseQuestionMarks(count: ids.count)))),
            marked AS MATERIALIZED (SELECT id, snippet, times, substr(words, 1, instr(words, char(1))) AS before FROM found)
            SELECT id, snippet, \(Self.firstMarkedTime("before", times: "times")) FROM marked
            """, arguments: StatementArguments(["words : (\(expression))"] + ids.map(\.description)))
        var spoken: [RecordingID: LibraryPage.Match] = [:]
        for row in rows {
            let id: String = row[0], at: Double? = row[2]
            guard let id = RecordingID(id), let at else { continue }
            spoken[id] = LibraryPage.Match(field: .words, snippet: row[1], at: at)
        }
        return spoken
    }

    /// A query's refusal, naming it and the way to write it.
    private static func refusal(_ query: String, _ error: DatabaseError) -> CraveyError {
        let why = error.message.map { $0.hasPrefix("fts5: ") ? String($0.dropFirst(6)) : $0 } ?? "\(error.resultCode)"
        return CraveyError(.invalidInput, "Cannot search for \(CraveyError.quoted(query, "'")): \(why). Words match as they are, \"a phrase\" in double quotes (each quote closed), crav* any word beginning so; OR, NOT and NEAR(a b) combine them.",
                           underlying: error)
    }

    // MARK: - The query

    /// The longest search or filter a library takes, in characters: a title is at most 40, notes
    /// at most 200, and a sentence of a clip's words a few hundred; SQLite refuses a LIKE pattern
    /// over 50,000 bytes, and a pasted page made the home screen search for seconds.
    package static let maxQueryLength = 1_000

    /// The FTS5 expression for what a person typed: refused when it holds no word; each number
    /// from 0 to 20 outside a phrase matches as digits or as a word ("10" finds "ten" and "ten"
    /// finds "10"), as Whisper writes either.
    package static func expression(_ query: String) throws -> String {
        guard query.count <= maxQueryLength else {
            throw CraveyError(.invalidInput, "Cannot search for \(CraveyError.quoted(query, "'")): it is \(query.count) characters long, and a search is at most \(maxQueryLength). Look for a few of its words.")
        }
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.unicodeScalars.contains(where: { CharacterSet.alphanumerics.contains($0) }) else {
            throw CraveyError(.invalidInput, "Cannot search for \(CraveyError.quoted(query, "'")): it holds no word. Give the words to look for, as `cravey search sister` or `cravey search \"my sister\"`.")
        }
        // FTS5 joins words by an implicit AND, but not a group in parentheses: a number made a
        // group gets an explicit AND on each side where a word, a phrase or a group meets it.
        enum Kind { case term, group, op, open, close, other }
        var out = "", word = "", inPhrase = false, nearDepth = 0, depth = 0
        var last = Kind.other, afterGroup = false
        func emit(_ text: String, _ kind: Kind) {
            let joins = [.term, .group, .open].contains(kind)
            if joins, kind == .group ? [.term, .group, .close].contains(last) : afterGroup { out += "AND " }
            out += text
            afterGroup = kind == .group
            last = kind
        }
        func flush(before next: Character?) {
            defer { word = "" }
            guard !word.isEmpty else { return }
            if nearDepth == 0, next != ":", next != "*", let other = numbers[word.lowercased()] {
                emit("(\(word) OR \(other))", .group)
            } else {
                emit(word, ["AND", "OR", "NOT", "NEAR"].contains(word) ? .op : .term)
            }
        }
        for character in trimmed {
            if inPhrase {
                out.append(character)
                if character == "\"" { inPhrase = false }
                continue
            }
            switch character {
            case "\"":
                flush(before: character)
                inPhrase = true
                emit("\"", .term)
            case " ", "\t", "\n":
                flush(before: character)
                out.append(character)
            case "(", ")", "*", ":", "^", "+", "{", "}", ",":
                if character == "(", word == "NEAR" { nearDepth = depth + 1 }
                flush(before: character)
                if character == "(" { depth += 1 }
                if character == ")" {
                    if nearDepth == depth { nearDepth = 0 }
                    depth -= 1
                }
                emit(String(character), character == "(" ? .open : character == ")" ? .close : character == "*" ? last : .other)
            default:
                word.append(character)
            }
        }
        flush(before: nil)
        return out
    }

    /// The numbers Whisper writes either way, each way to the other.
    private static let numbers: [String: String] = {
        let words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                     "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
        var map: [String: String] = [:]
        for (value, word) in words.enumerated() {
            map[word] = String(value)
            map[String(value)] = word
        }
        return map
    }()
}
