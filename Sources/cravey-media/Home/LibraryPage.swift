import CraveyCore
import CraveyKit
import Foundation

/// What the home screen shows of the library at one moment, read in one snapshot of the store
/// (``LibraryStore/read(_:)``): the rows on the screen, never the whole library.
struct LibraryPage: Sendable {
    /// Recordings containing the filter (all of them without one).
    var matching = 0
    /// Recordings in the library.
    var total = 0
    /// The rows shown, from ``first``.
    var rows: [Recording] = []
    /// The position, among those matching, of the first row shown.
    var first = 0
    var quickPlay: [Recording] = []

    /// What the screen asks for: an order, a filter, and the rows from `first` on.
    struct Request: Equatable, Sendable {
        var sort = RecordingSort.recent
        var filter = ""
        var first = 0
        var count = 0
    }

    /// Reads the page `request` asks for; with `keeping`, the page where that clip stands (its
    /// position returned), when it is among those matching. The corresponding GRDB requests are
    /// ``RecordingRepository``'s.
    static func read(_ library: RecordingLibrary, _ request: Request, keeping id: UUID? = nil) throws -> (LibraryPage, position: Int?) {
        try library.store.read { db in
            let repository = RecordingRepository(db)
            var page = LibraryPage()
            page.total = try repository.count()
            page.matching = request.filter.isEmpty ? page.total : try repository.count(containing: request.filter)
            page.quickPlay = try repository.quickPlay()
            let position = try id.flatMap { try repository.position(of: $0, sortedBy: request.sort, containing: request.filter) }
            var first = request.first
            if let position, !(first..<(first + request.count)).contains(position) {
                first = max(position - request.count / 2, 0)
            }
            first = max(min(first, page.matching - request.count), 0)
            page.first = first
            page.rows = try repository.recordings(sortedBy: request.sort, containing: request.filter, offset: first, limit: request.count)
            return (page, position)
        }
    }
}
