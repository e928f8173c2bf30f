import Foundation

/// A frame as text before a terminal shows it: what is put where and in which style, and where
/// the cursor stands. ``TerminalScreen/show(_:)`` writes it; a test reads its ``lines``.
struct TerminalFrame {
    /// Text put at a row and column, already fitted to the room it had.
    struct Piece: Equatable {
        let row: Int
        let column: Int
        let text: String
        let style: TerminalScreen.Style
    }

    let rows: Int
    let columns: Int
    private(set) var pieces: [Piece] = []
    /// Where the cursor shows (a line being typed); nil: hidden.
    var cursor: (row: Int, column: Int)?

    init(rows: Int, columns: Int) {
        (self.rows, self.columns) = (rows, columns)
    }

    /// Puts `text` at `row` and `column`, within `width` columns (the rest of the row when nil),
    /// cut with "…" when it is wider (``TerminalScreen/fitted(_:width:)``). Returns the columns used.
    @discardableResult
    mutating func put(_ text: String, row: Int, column: Int, width: Int? = nil, style: TerminalScreen.Style = .plain) -> Int {
        let room = min(width ?? (columns - column), columns - column)
        guard row >= 0, row < rows, column >= 0, room > 0 else { return 0 }
        let (characters, used) = TerminalScreen.fitted(text, width: room)
        let scalars = characters.compactMap { Unicode.Scalar(UInt32(bitPattern: $0)) }
        pieces.append(Piece(row: row, column: column, text: String(String.UnicodeScalarView(scalars)), style: style))
        return used
    }

    /// Paints `width` columns of `row` from `column` blank in `style` (a selected row's bar).
    mutating func fill(row: Int, column: Int = 0, width: Int? = nil, style: TerminalScreen.Style) {
        let room = min(width ?? (columns - column), columns - column)
        guard room > 0 else { return }
        put(String(repeating: " ", count: room), row: row, column: column, width: room, style: style)
    }

    /// Each row's text as the terminal shows it, trailing blanks dropped: a wide character takes
    /// two columns, a combining mark none.
    var lines: [String] {
        var cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
        for piece in pieces {
            var column = piece.column
            for scalar in piece.text.unicodeScalars {
                let width = TerminalScreen.width(of: scalar)
                if width == 0 {
                    if column > 0 { cells[piece.row][column - 1] += String(scalar) }
                    continue
                }
                guard column + width <= columns else { break }
                cells[piece.row][column] = String(scalar)
                if width == 2 { cells[piece.row][column + 1] = "" }
                column += width
            }
        }
        return cells.map { String($0.joined().reversed().drop(while: { $0 == " " }).reversed()) }
    }

    /// The frame's text, its rows joined by line breaks.
    var text: String { lines.joined(separator: "\n") }
}
