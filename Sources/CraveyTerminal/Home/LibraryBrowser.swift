import CraveyCore
import CraveyKit
import Foundation

/// The library as the home screen browses it: an order, a filter, the page of rows on the
/// screen and the selected clip among those matching. It reads a page at a time through the door
/// (``RecordingLibrary/page(_:)``) and changes nothing; the home screen draws it and says its errors.
struct LibraryBrowser {
    /// The library read (a new one once the first recording has made it).
    var library: RecordingLibrary
    /// What is asked of the library: the order, the filter and the rows from `first` on.
    private(set) var request = LibraryPage.Request()
    /// What was read.
    private(set) var page = LibraryPage()
    /// The selected clip's position among those matching the filter.
    private(set) var selected = 0
    /// The rowids the current filter matches, when they are few (``LibraryPage/matchingRowIDs``):
    /// the next keystroke that types it further looks among these only.
    private var filtered: (filter: String, rowIDs: [Int64])?
    /// How many rows the list shows.
    var rows = 1
    /// The filter typed and not read yet (``type(filter:)``).
    private var typed: String?

    init(library: RecordingLibrary) {
        self.library = library
    }

    /// The selected clip, when it is on the page read.
    var selectedRecording: Recording? {
        let index = selected - page.first
        return page.rows.indices.contains(index) ? page.rows[index] : nil
    }

    /// Whether the filter's matches await their count (read once the rows are drawn and no key
    /// waits: while a person types, each keystroke reads only the rows it shows).
    var awaitsCount: Bool { !page.counted }

    /// Reads the page the screen shows; with `keeping`, the page holding that clip, selected.
    /// With `counting`, the counts and Quick Play too (a change of the library); without, they
    /// stay as read (a move, a scroll), and a filter typed further awaits its count (``count()``).
    mutating func read(keeping id: RecordingID? = nil, counting: Bool = true) throws {
        request.count = rows
        request.keeping = id
        request.counting = counting ? .all : .rows
        // A scroll within matches counted: the rows within them.
        if !counting, page.counted { request.first = max(min(request.first, page.matching - rows), 0) }
        var read = try library.page(request)
        if !counting {
            (read.total, read.quickPlay) = (page.total, page.quickPlay)
            if page.counted { (read.matching, read.counted) = (page.matching, true) }
        }
        page = read
        request.first = page.first
        if let position = page.position { selected = position }
        selected = max(min(selected, page.matching - 1), 0)
    }

    /// Counts what the filter matches (after the rows it shows are drawn), keeping the rowids of
    /// a few matches for the next keystroke. Counted even when it fails, so it is not tried again
    /// before the next change.
    mutating func count() throws {
        defer { page.counted = true }
        var asked = request
        (asked.counting, asked.keeping) = (.matches, nil)
        let counted = try library.page(asked)
        page.matching = counted.matching
        filtered = counted.matchingRowIDs.map { (request.filter, $0) }
    }

    /// Reads again what is shown, after a change of the library (this process's or another's):
    /// the same rows, the selection kept on its clip while it is there. A filter's matches are
    /// counted again among every clip (a new one may match).
    mutating func refresh() throws {
        let id = selectedRecording?.id
        request.among = nil
        filtered = nil
        try read()
        if let id, let index = page.rows.firstIndex(where: { $0.id == id }) { selected = page.first + index }
    }

    /// Moves the selection to `position` (clamped), reading the page it is on when it is not
    /// the one shown.
    mutating func select(_ position: Int) throws {
        selected = max(min(position, page.matching - 1), 0)
        var first = request.first
        if selected < first { first = selected }
        if selected >= first + rows { first = selected - rows + 1 }
        guard first != request.first || page.rows.count < min(rows, page.matching - first) else { return }
        request.first = first
        try read(counting: false)
    }

    /// Moves the selection by `offset` rows.
    mutating func move(by offset: Int) throws {
        try select(selected + offset)
    }

    /// Scrolls the list by `offset` rows (the wheel), the selection kept within it.
    mutating func scroll(by offset: Int) throws {
        request.first = max(min(request.first + offset, page.matching - rows), 0)
        try read(counting: false)
        selected = max(min(selected, request.first + rows - 1), request.first)
    }

    /// Selects the clip shown on list row `row` (0: the first shown), when there is one.
    mutating func select(shownRow row: Int) throws {
        let position = request.first + row
        if position < page.matching { try select(position) }
    }

    /// The next order (recent, most played, title), the selected clip kept selected.
    mutating func nextSort() throws {
        let sorts = RecordingSort.allCases
        request.sort = sorts[(sorts.firstIndex(of: request.sort)! + 1) % sorts.count]
        try read(keeping: selectedRecording?.id)
    }

    /// Filters the list with `text`, reading the rows it shows at once and leaving its matches
    /// to be counted once they are drawn (among the few the filter it extends matched, when it
    /// does); emptied, the selection goes back to the clip it was on.
    mutating func filter(_ text: String) throws {
        let keep = text.isEmpty ? selectedRecording?.id : nil
        let extended = filtered.flatMap { !$0.filter.isEmpty && text.hasPrefix($0.filter) ? $0.rowIDs : nil }
        request.filter = text
        request.among = text.isEmpty ? nil : extended
        request.first = 0
        selected = 0
        if text.isEmpty { filtered = nil }
        if !text.isEmpty { page.counted = false }
        try read(keeping: keep, counting: text.isEmpty)
    }

    /// The filter as typed, read or not.
    var typedFilter: String { typed ?? request.filter }

    /// Types the filter `text` without reading the list: keys read at once (typed ahead, pasted)
    /// read it once, by ``readTypedFilter()``.
    mutating func type(filter text: String) {
        typed = text
    }

    /// Filters the list with the filter typed (``filter(_:)``), if it changed.
    mutating func readTypedFilter() throws {
        guard let text = typed else { return }
        typed = nil
        if text != request.filter { try filter(text) }
    }

    /// Selects the clip `id` (a new recording): without the filter when the filter hides it.
    mutating func show(_ id: RecordingID) throws {
        try read(keeping: id)
        if selectedRecording?.id != id, !request.filter.isEmpty {
            request.filter = ""
            request.among = nil
            filtered = nil
            try read(keeping: id)
        }
    }
}
