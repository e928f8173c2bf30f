import CNcurses
import CraveyCore
import CraveyKit
import Foundation

/// The terminal as ncurses draws it: one `SCREEN` on stdin and stdout, in the terminal's own
/// terms (its terminfo entry: the alternate screen, cursor moves, bracketed paste), each frame
/// written as only what changed since the last (`doupdate`); its keys (mouse and pastes among
/// them) read as every screen reads them (``KeyReader/Decoder``).
///
/// Not thread-safe, as ncurses is not: one thread makes it, draws, reads keys and ends it.
/// Signals are not ncurses' business here (the home screen catches them before this starts, so
/// ncurses installs no handler of its own): the owner calls ``resize()``, ``suspend()`` and
/// ``resume()`` from its thread.
final class TerminalScreen {
    /// How a piece of text is drawn.
    enum Style {
        case plain, bold, dim
        /// The selected row.
        case selected
        /// What is live or played: a waveform's played part, the Quick Play numbers.
        case accent
        /// A refusal or failure on the status line.
        case warning
    }

    private let screen: OpaquePointer
    /// Whether colours are used: the terminal has them and NO_COLOR is not set.
    let colour: Bool
    private(set) var rows = 0
    private(set) var columns = 0
    private var ended = false
    /// Whether bracketed paste and mouse reporting are asked of the terminal (from the first
    /// frame on, and again after ``resume()``), until ``suspend()``.
    private var asking = false
    /// The keys read so far and not complete yet, a paste's among them.
    private var decoder = KeyReader.Decoder()

    /// Bracketed paste as the terminfo entry names it (`BE`, `BD`), else as xterm defined it
    /// (its marks are xterm's, ``KeyReader/pasteStart``). Readline (bash) and Neovim ask it of
    /// every terminal but a dumb one, and so does this: a terminal that does not know the mode
    /// ignores it, as ECMA-48 has a private mode it does not know ignored (`screen`'s entry
    /// names none, and GNU screen and tmux both keep it).
    private static let bracketedPaste = (on: capability("BE", or: "\u{1B}[?2004h"), off: capability("BD", or: "\u{1B}[?2004l"))

    /// Mouse reporting asked of the terminal, as ``TerminalMode`` asks it for the other screens:
    /// xterm's button presses and the wheel (1000), reported as SGR (1006); a terminal that
    /// knows only X10's reports sends those, which ``KeyReader`` reads too.
    private static let mouseReporting = (on: "\u{1B}[?1000h\u{1B}[?1006h", off: "\u{1B}[?1000l\u{1B}[?1006l")

    /// Takes the terminal on stdin and stdout: its alternate screen, keys read as typed without
    /// echo (Ctrl-C and Ctrl-Z still send their signals), the cursor hidden, mouse reporting on
    /// (with the first frame).
    ///
    /// Throws `.invalidInput` when the terminal cannot show a screen: TERM unset, unknown to
    /// terminfo, or unable to move the cursor (`dumb`). The corresponding C functions are
    /// `setupterm`, `tigetstr` and `newterm`.
    init(colour wanted: Bool) throws(CraveyError) {
        // Characters as UTF-8 whatever the locale says: cravey's titles are, and so is every
        // line it writes to a terminal.
        setlocale(LC_ALL, "")
        if String(cString: nl_langinfo(nl_item(CODESET))) != "UTF-8" { setlocale(LC_CTYPE, "C.UTF-8") }
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        let refusal = CraveyError(.invalidInput, "The home screen needs a terminal that can move its cursor, and TERM=\(term.isEmpty ? "(unset)" : term) cannot. Run it in a terminal such as xterm, or use the commands one by one (`cravey --help` lists them).")
        var status: Int32 = 0
        guard !term.isEmpty, setupterm(term, 1, &status) == OK else { throw refusal }
        let move = tigetstr("cup")
        guard let move, move != UnsafeMutablePointer(bitPattern: -1) else { throw refusal }
        guard let screen = newterm(term, cravey_curses_stdout(), cravey_curses_stdin()) else { throw refusal }
        self.screen = screen
        set_term(screen)
        cbreak()
        noecho()
        nonl()
        // Its keys are read here (``keys()``), not by ncurses: it need not look for them.
        typeahead(-1)
        curs_set(0)
        colour = wanted && has_colors()
        if colour {
            start_color()
            use_default_colors()
            init_pair(1, Int16(COLOR_CYAN), -1)
            init_pair(2, Int16(COLOR_RED), -1)
        }
        measure()
    }

    deinit {
        end()
        delscreen(screen)
    }

    // MARK: - Drawing

    /// Draws `frame` whole into ncurses' picture of the screen and writes it: only what changed
    /// since the last one reaches the terminal.
    func show(_ frame: TerminalFrame) {
        werase(cravey_curses_stdscr())
        for piece in frame.pieces { put(piece) }
        show(cursor: frame.cursor)
    }

    /// Draws `piece`, fitted to its room when the frame was made
    /// (``TerminalFrame/put(_:row:column:width:style:)``). The corresponding C function is
    /// `mvwaddnwstr`.
    private func put(_ piece: TerminalFrame.Piece) {
        guard piece.row < rows, piece.column < columns else { return }
        let characters = piece.text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
        wattr_set(cravey_curses_stdscr(), attributes(piece.style), 0, nil)
        characters.withUnsafeBufferPointer { buffer in
            _ = mvwaddnwstr(cravey_curses_stdscr(), Int32(piece.row), Int32(piece.column), buffer.baseAddress, Int32(buffer.count))
        }
        wattr_set(cravey_curses_stdscr(), 0, 0, nil)
    }

    /// Writes the frame: only what changed since the last one reaches the terminal. With the
    /// cursor at `cursor`, it shows there (a prompt); else it stays hidden. The corresponding C
    /// functions are `wnoutrefresh` and `doupdate`.
    private func show(cursor: (row: Int, column: Int)?) {
        if let cursor {
            wmove(cravey_curses_stdscr(), Int32(cursor.row), Int32(min(cursor.column, columns - 1)))
            curs_set(1)
        } else {
            curs_set(0)
        }
        if !asking {
            Self.send(Self.bracketedPaste.on + Self.mouseReporting.on)
            asking = true
        }
        wnoutrefresh(cravey_curses_stdscr())
        doupdate()
    }

    /// Draws the whole screen again at the next ``show(_:)``, whatever the terminal is thought to
    /// show (after another program wrote over it). The corresponding C function is `clearok`.
    func redrawAll() {
        clearok(cravey_curses_stdscr(), true)
    }

    // MARK: - Keys

    /// The keys typed since the last call, without waiting: what stdin holds
    /// (``KeyReader/available()``), read through ``KeyReader/Decoder`` as every screen's keys are
    /// (ncurses draws; it reads nothing). A paste is one ``Key/paste(_:)`` once its end has come.
    func keys() -> [Key] {
        decoder.keys(KeyReader.available())
    }

    /// Whether a key's sequence waits for its rest (an Escape alone so far): the loop waits
    /// ``KeyReader/Decoder/escapeDelay`` for it, then takes ``keysWaited()``.
    var keyWaits: Bool { decoder.waiting }

    /// Nothing followed the start of a sequence: an Escape alone is the Escape key.
    func keysWaited() -> [Key] {
        decoder.timedOut()
    }

    /// Whether more input comes within `milliseconds` (more than a person types at once after
    /// a key). The corresponding C function is `poll`.
    func inputArrives(within milliseconds: Int32) -> Bool {
        var waiting = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        return poll(&waiting, 1, milliseconds) > 0 && waiting.revents & Int16(POLLIN) != 0
    }

    /// Reads and drops what arrives until nothing more has come for 30 ms (a paste comes in
    /// pieces), for a second at most, or the terminal is gone.
    func dropWaitingInput() {
        let deadline = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
        while DispatchTime.now().uptimeNanoseconds < deadline, inputArrives(within: 30) {
            var waiting = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            if poll(&waiting, 1, 0) > 0, waiting.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { break }
            _ = keys()
        }
        decoder = KeyReader.Decoder()
    }

    // MARK: - The terminal's life

    /// Takes the terminal's new size (after SIGWINCH). The corresponding C functions are `ioctl`
    /// with `TIOCGWINSZ` and `resizeterm`.
    func resize() {
        var size = winsize()
        if ioctl(1, cravey_tiocgwinsz(), &size) == 0, size.ws_row > 0, size.ws_col > 0 {
            resizeterm(Int32(size.ws_row), Int32(size.ws_col))
        }
        measure()
    }

    /// Gives the terminal back as it was, for a while (Ctrl-Z): mouse reporting off, the
    /// cursor shown, the normal screen and mode. The corresponding C function is `endwin`.
    func suspend() {
        Self.send(Self.bracketedPaste.off + Self.mouseReporting.off)
        asking = false
        curs_set(1)
        endwin()
    }

    /// Takes the terminal again after ``suspend()`` (`fg`), and draws it whole at the next
    /// ``show(_:)``. The corresponding C function is `reset_prog_mode`.
    func resume() {
        reset_prog_mode()
        // Asked again with the next frame (another program may have turned them off meanwhile).
        asking = false
        resize()
        redrawAll()
    }

    /// Gives the terminal back for good: mouse reporting off, the cursor shown, the normal
    /// screen, the mode it had. A second call does nothing.
    func end() {
        guard !ended else { return }
        ended = true
        suspend()
    }

    /// Sends `capability` to the terminal at once (putp writes through the C library's buffer
    /// of stdout, not ncurses' own, so it is flushed). The corresponding C functions are `putp`
    /// and `fflush`.
    private static func send(_ capability: String) {
        putp(capability)
        fflush(cravey_curses_stdout())
    }

    /// The terminfo entry's string `name`, or `fallback` when it has none. The corresponding C
    /// function is `tigetstr`.
    private static func capability(_ name: String, or fallback: String) -> String {
        guard let value = tigetstr(name), value != UnsafeMutablePointer(bitPattern: -1) else { return fallback }
        return String(cString: value)
    }

    private func measure() {
        rows = Int(getmaxy(cravey_curses_stdscr()))
        columns = Int(getmaxx(cravey_curses_stdscr()))
    }

    private func attributes(_ style: Style) -> attr_t {
        switch style {
        case .plain: 0
        case .bold: cravey_curses_bold()
        case .dim: cravey_curses_dim()
        case .selected: cravey_curses_reverse()
        case .accent: colour ? cravey_curses_color_pair(1) : cravey_curses_bold()
        case .warning: colour ? cravey_curses_color_pair(2) | cravey_curses_bold() : cravey_curses_bold()
        }
    }

    // MARK: - Widths

    /// The columns a terminal gives `scalar`: 2 for a wide character, 0 for a combining mark, 1
    /// for the rest (one it does not know is shown as U+FFFD). The corresponding C function is
    /// `wcwidth`.
    static func width(of scalar: Unicode.Scalar) -> Int {
        let width = cravey_wcwidth(wchar_t(bitPattern: scalar.value))
        return width < 0 ? 1 : Int(width)
    }

    /// The columns `text` takes.
    static func width(of text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width(of: $1) }
    }

    /// `text` as wide characters within `width` columns, cut with "…" when wider; and the
    /// columns it takes. Control characters (which ``Format/visible(_:)`` leaves none of) and
    /// characters the C library cannot measure become U+FFFD.
    static func fitted(_ text: String, width: Int) -> ([wchar_t], Int) {
        var characters: [wchar_t] = []
        var used = 0
        let total = self.width(of: text)
        let room = total > width ? width - 1 : width
        for scalar in text.unicodeScalars {
            let shown: Unicode.Scalar = cravey_wcwidth(wchar_t(bitPattern: scalar.value)) < 0 ? "\u{FFFD}" : scalar
            let columns = self.width(of: shown)
            guard used + columns <= room else { break }
            characters.append(wchar_t(bitPattern: shown.value))
            used += columns
        }
        if total > width, width > 0 {
            characters.append(wchar_t(bitPattern: ("…" as Unicode.Scalar).value))
            used += 1
        }
        return (characters, used)
    }
}
