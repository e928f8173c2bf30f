import Foundation
import GRDB

/// A page of the library's clips as a list shows them, read in one snapshot of the store
/// (``RecordingLibrary/page(_:)``): the rows asked for, never the whole library, and what a
/// list's header and its word filter need beside them.
///
/// The home screen's list (its order, its `/` filter, a page at a time, Quick Play and the count
/// in its header) and `cravey search` are both read through it, so both reach the word index the
/// same way.
package struct LibraryPage: Sendable {
    /// What a list asks of the library: an order, a filter, and the rows from ``first`` on.
    ///
    /// It gives the page's ``LibraryPage/rows``; with ``counting`` `.all` (the default), also the
    /// clips in the library (``LibraryPage/total``), Quick Play (``LibraryPage/quickPlay``) and
    /// how many clips the filter matches (``LibraryPage/matching``), so that a program can draw
    /// the home screen's list and header from one request; with a filter, where each row's match
    /// is (``LibraryPage/matches``). A list typed into reads the rows alone at each keystroke
    /// (`.rows`) and counts the matches once they are shown (`.matches`), as the home screen does.
    package struct Request: Sendable, Equatable {
        /// The order of the rows; a search (``Syntax/query``) is best first instead.
        package var sort: RecordingSort
        /// What the clips must hold: empty for every clip; read as ``syntax`` says.
        package var filter: String
        /// How ``filter`` is read.
        package var syntax: Syntax
        /// The position, among the clips matching, of the first row wanted (0: the first).
        package var first: Int
        /// How many rows are wanted; nil for every one from ``first``.
        package var count: Int?
        /// A clip whose page is wanted: when it is among those matching, the rows are those around
        /// it and ``LibraryPage/position`` says where it stands (a typed filter's list only).
        package var keeping: RecordingID?
        /// Which counts are read beside the rows.
        package var counting: Counting
        /// The SQLite rowids the filter's matches are among, when known: those a filter it
        /// extends matched (``LibraryPage/matchingRowIDs``), so a keystroke looks among them only.
        package var among: [Int64]?

        package init(sort: RecordingSort = .recent, filter: String = "", syntax: Syntax = .typed, first: Int = 0, count: Int? = nil,
                    keeping: RecordingID? = nil, counting: Counting = .all) {
            (self.sort, self.filter, self.syntax, self.first) = (sort, filter, syntax, first)
            (self.count, self.keeping, self.counting) = (count, keeping, counting)
        }
    }

    /// How a request's filter is read.
    package enum Syntax: Sendable, Equatable {
        /// As a person types it into a list (the home screen's `/`), never query syntax: the
        /// clips whose title, notes or purpose contain it, or whose title, notes or words hold
        /// each of its words as a prefix (accents folded); a word `#calm` is a tag they have. The
        /// rows are in the request's order; ``LibraryPage/matches`` holds the rows whose words
        /// (transcript) hold it, with when the first is said. A filter longer than
        /// ``RecordingLibrary/maxFilterLength`` matches no clip.
        case typed
        /// As a search (`cravey search`): SQLite FTS5's query syntax (words, "a phrase", `crav*`,
        /// OR, NOT, NEAR; a number from 0 to 20 as digits or a word) over titles, notes and
        /// words, best first; every row has its best match in ``LibraryPage/matches``. A query
        /// that holds no word, is longer than ``RecordingLibrary/maxFilterLength`` or is not that
        /// syntax is refused (`.invalidInput`).
        case query
    }

    /// Which counts a request reads beside its rows.
    package enum Counting: Sendable, Equatable {
        /// The rows, the clips in the library, Quick Play and the clips matching.
        case all
        /// The rows alone (a scroll, a keystroke of a filter): ``LibraryPage/counted`` is false
        /// and ``LibraryPage/matching`` only as many as are known (the rows read, and one more when
        /// there are more).
        case rows
        /// The clips matching counted alone, no rows: a filter's count left for when its rows
        /// are shown.
        case matches
    }

    /// Where a clip matched a filter or a search.
    package struct Match: Sendable, Equatable {
        /// The part of a clip a match is in.
        package enum Field: String, Sendable {
            case title, notes, words
        }

        /// Where the (best) match is.
        package var field: Field
        /// A few words around it, each match between ``markStart`` and ``markEnd``.
        package var snippet: String
        /// When the first matched word is said, in seconds, for a match in the words.
        package var at: Double?

        /// What marks the start and the end of a match in a ``snippet``.
        package static let markStart = "\u{1}", markEnd = "\u{2}"
    }

    /// The rows, in the request's order (a search's best first).
    package var rows: [Recording] = []
    /// The position, among those matching, of the first row (the request's ``Request/first``,
    /// moved to hold the clip it keeps, and within the matches when they are counted).
    package var first = 0
    /// Where the clip the request keeps stands among those matching; nil when it is not there.
    package var position: Int?
    /// The clips the filter matches (all of them without one); while ``counted`` is false, only
    /// as many as are known.
    package var matching = 0
    /// Whether ``matching`` is the count (``Counting/all``, ``Counting/matches``).
    package var counted = false
    /// The clips in the library (``Counting/all``).
    package var total = 0
    /// Quick Play (``RecordingLibrary/quickPlay(tagged:)``; ``Counting/all``).
    package var quickPlay: [Recording] = []
    /// Where the rows matched, by clip (see ``Syntax``).
    package var matches: [RecordingID: Match] = [:]
    /// The rowids of the clips a typed filter matches, when ``Counting/matches`` counted at most
    /// ``narrowing`` of them: the next request whose filter extends it looks among these.
    package var matchingRowIDs: [Int64]?

    package init() {}

    /// The most matches whose rowids are kept for the next keystroke of a filter (8 bytes each).
    package static let narrowing = 4096

    /// Reads the page `request` asks for in `db`. The corresponding GRDB requests are
    /// ``RecordingRepository``'s and ``ClipSearch``'s.
    package init(_ request: Request, in db: Database) throws {
        let repository = RecordingRepository(db), search = ClipSearch(db), typed = request.syntax == .typed
        if request.counting != .rows {
            if request.counting == .all {
                total = try repository.count()
                quickPlay = try repository.quickPlay()
            }
            if request.filter.isEmpty, typed {
                matching = request.counting == .all ? total : try repository.count()
            } else if !typed {
                matching = try search.count(request.filter)
            } else if request.counting == .matches,
                      let rowIDs = try repository.rowIDs(containing: request.filter, among: request.among, atMost: Self.narrowing) {
                (matching, matchingRowIDs) = (rowIDs.count, rowIDs)
            } else {
                matching = try repository.count(containing: request.filter, among: request.among)
            }
            counted = true
            if request.counting == .matches { return }
        }
        first = max(request.first, 0)
        if typed, let id = request.keeping {
            position = try repository.position(of: id, sortedBy: request.sort, containing: request.filter)
        }
        if let position, let count = request.count, !(first..<(first + count)).contains(position) {
            first = max(position - count / 2, 0)
        }
        if counted, let count = request.count { first = max(min(first, matching - count), 0) }
        // Uncounted: one row more says whether there are more.
        let limit = request.count.map { $0 + (counted ? 0 : 1) }
        if typed {
            let read = try repository.recordings(sortedBy: request.sort, containing: request.filter, among: request.among,
                                                 offset: first, limit: limit ?? Int.max)
            rows = Array(read.prefix(request.count ?? read.count))
            if !request.filter.isEmpty { matches = try search.spoken(in: rows.map(\.id), matching: request.filter) }
            if !counted { matching = first + read.count }
        } else {
            let found = try search.search(request.filter, offset: first, limit: limit)
            rows = Array(found.prefix(request.count ?? found.count).map(\.recording))
            for (recording, match) in found.prefix(rows.count) { matches[recording.id] = match }
            if !counted { matching = first + found.count }
        }
    }
}
