import CraveyCore
import CraveyKit
import Foundation

/// What the home screen shows of the library at one moment, read in one snapshot of the store
/// (``LibraryStore/read(_:)``): the rows on the screen, never the whole library.
struct LibraryPage: Sendable {
    /// Recordings containing the filter (all of them without one); while ``counted`` is false,
    /// only as many as are known so far (the rows read, and one more if there are more).
    var matching = 0
    /// Whether ``matching`` is the count, or awaits one (``count(_:_:)``).
    var counted = true
    /// Recordings in the library.
    var total = 0
    /// The rows shown, from ``first``.
    var rows: [Recording] = []
    /// The position, among those matching, of the first row shown.
    var first = 0
    var quickPlay: [Recording] = []
    /// The rows shown whose transcripts hold the filter's words: a snippet, and when the first
    /// is said (Enter plays from there).
    var spoken: [RecordingID: ClipSearch.Spoken] = [:]

    /// The most matches whose rowids are kept for the next keystroke of the filter (8 bytes
    /// each): a filter typed further matches among them only.
    static let narrowing = 4096

    /// What the screen asks for: an order, a filter, and the rows from `first` on.
    struct Request: Equatable, Sendable {
        var sort = RecordingSort.recent
        var filter = ""
        /// The rowids the filter's matches are among (those of a filter it extends), when known.
        var among: [Int64]?
        var first = 0
        var count = 0
    }

    /// Reads the page `request` asks for; with `keeping`, the page where that clip stands (its
    /// position returned), when it is among those matching. Without `counting`, the counts and
    /// Quick Play are `previous`'s, and with a filter the count is left for ``count(_:_:)``
    /// (so a keystroke of the filter reads the rows it shows, not the whole table). The
    /// corresponding GRDB requests are ``RecordingRepository``'s.
    static func read(_ library: RecordingLibrary, _ request: Request, keeping id: RecordingID? = nil, counting: Bool = true,
                     previous: LibraryPage = LibraryPage()) throws -> (LibraryPage, position: Int?) {
        try library.store.read { db in
            let repository = RecordingRepository(db)
            var page = previous
            if counting {
                page.total = try repository.count()
                page.quickPlay = try repository.quickPlay()
                page.matching = request.filter.isEmpty ? page.total : try repository.count(containing: request.filter, among: request.among)
                page.counted = true
            }
            let position = try id.flatMap { try repository.position(of: $0, sortedBy: request.sort, containing: request.filter) }
            var first = request.first
            if let position, !(first..<(first + request.count)).contains(position) {
                first = max(position - request.count / 2, 0)
            }
            if page.counted { first = max(min(first, page.matching - request.count), 0) }
            page.first = first
            // Uncounted: one row more says whether there are more.
            let rows = try repository.recordings(sortedBy: request.sort, containing: request.filter, among: request.among,
                                                 offset: first, limit: request.count + (page.counted ? 0 : 1))
            page.rows = Array(rows.prefix(request.count))
            page.spoken = request.filter.isEmpty ? [:] : try ClipSearch(db).spoken(in: page.rows.map(\.id), matching: request.filter)
            if !page.counted { page.matching = first + rows.count }
            return (page, position)
        }
    }

    /// Counts what the filter of `request` matches; returns the count and, when there are at
    /// most ``narrowing`` of them, their rowids.
    static func count(_ library: RecordingLibrary, _ request: Request) throws -> (matching: Int, rowIDs: [Int64]?) {
        try library.store.read { db in
            let repository = RecordingRepository(db)
            if let rowIDs = try repository.rowIDs(containing: request.filter, among: request.among, atMost: narrowing) {
                return (rowIDs.count, rowIDs)
            }
            return (try repository.count(containing: request.filter, among: request.among), nil)
        }
    }
}
