/// Where each part of the home screen goes on a terminal of a given size: the rows of each
/// block and the columns of the list. From 40x10 up, every block has its place; more rows give
/// Quick Play its own lines and the selected clip its waveform and words; more columns give the
/// list its date and purpose.
struct HomeLayout: Equatable {
    static let smallest = (rows: 10, columns: 40)

    let rows: Int
    let columns: Int
    /// The header: the program, the library's count and `? help`.
    let header = 0
    /// Quick Play's heading (when it has rows of its own), and one row per clip; or one row for
    /// all three at once.
    let quickPlayHeading: Int?
    let quickPlayRows: [Int]
    let libraryHeading: Int
    let list: Range<Int>
    /// The selected clip's rows: a heading, its waveform, its notes, its dates (or only the
    /// first, on a short terminal; none on the shortest).
    let details: Range<Int>
    let player: Int
    let status: Int

    var fits: Bool { rows >= Self.smallest.rows && columns >= Self.smallest.columns }

    init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
        var row = 1
        if rows >= 18 {
            quickPlayHeading = row
            quickPlayRows = [row + 1, row + 2, row + 3]
            row += 4
        } else {
            quickPlayHeading = nil
            quickPlayRows = [row]
            row += 1
        }
        libraryHeading = row
        row += 1
        let detailRows = rows >= 22 ? 4 : rows >= 14 ? 1 : 0
        status = max(rows - 1, row)
        player = max(status - 1, row)
        details = max(player - detailRows, row)..<player
        list = row..<details.lowerBound
    }

    /// The list's columns at this width: the title takes what the others leave.
    struct Columns: Equatable {
        var date: Int?
        var shortDate: Bool
        var purpose: Int?
        let length = 7
        let plays = 6
        var title: Int
    }

    var listColumns: Columns {
        var columns = Columns(date: nil, shortDate: false, purpose: nil, title: 0)
        if self.columns >= 60 { columns.purpose = 13 }
        if self.columns >= 86 {
            columns.date = 21
        } else if self.columns >= 70 {
            (columns.date, columns.shortDate) = (13, true)
        }
        // The mark column, the type's icon and a space, then the fixed columns.
        columns.title = self.columns - 3 - (columns.date ?? 0) - columns.length - columns.plays - (columns.purpose ?? 0) - 1
        return columns
    }
}
