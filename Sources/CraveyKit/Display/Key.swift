/// A key or mouse event a person gives, wherever it was read: the terminal (the home screen's
/// ncurses, the other screens' ``KeyReader``) or a video's window. One type, so that one key
/// table (CraveyTerminal's `KeyTable`) says what each does on every screen, the window's too.
package enum Key: Sendable, Equatable {
    /// A printable character as typed (a space included).
    case character(Character)
    /// A control character other than those named here: Ctrl-U is `control("u")`.
    case control(Character)
    case enter, escape, backspace, tab
    case up, down, left, right, pageUp, pageDown, home, end
    /// The left button pressed at this row and column of the terminal (0-based).
    case click(row: Int, column: Int)
    case wheelUp, wheelDown
    /// Text pasted, whole: what the terminal sent between its bracketed-paste marks, never
    /// read as keys.
    case paste(String)

    /// Whether it is `other`, a click anywhere standing for every click (where a click lands is
    /// for the screen that drew there to read).
    package func matches(_ other: Key) -> Bool {
        if case .click = self, case .click = other { return true }
        return self == other
    }

    /// Whether it changes a line being typed (a character, a paste, Backspace, Ctrl-U, Ctrl-W).
    package var editsLine: Bool {
        switch self {
        case .character, .paste, .backspace, .control("u"), .control("w"): true
        default: false
        }
    }

    /// `line` (the filter, a prompt) changed by this key: Backspace, Ctrl-U and Ctrl-W take
    /// back a character, the line, a word; a character is added. Nil when it edits no line.
    package func edit(_ line: String) -> String? {
        switch self {
        case .character(let character): line + String(character)
        case .backspace: String(line.dropLast())
        case .control("u"): ""
        case .control("w"): String(line.reversed().drop(while: { $0 == " " }).drop(while: { $0 != " " }).reversed())
        default: nil
        }
    }
}
