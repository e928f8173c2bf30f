import CraveyKit
import Foundation
@testable import CraveyTerminal

/// The home screen without a terminal: events in as its shell (``HomeScreen``) sends them, the
/// state, the effects and the frame's text out.
struct HomeDriver {
    var state: HomeState
    /// Every effect returned so far, in order.
    private(set) var effects: [HomeEffect] = []

    /// The screen at `rows` by `columns` on `library`, read and drawn once.
    init(_ library: RecordingLibrary, rows: Int = 24, columns: Int = 80) throws {
        // As the terminal's screen chooses it: widths are the C library's, in UTF-8.
        setlocale(LC_CTYPE, "C.UTF-8")
        state = HomeState(library: library, rows: rows, columns: columns, colour: false)
        try state.read()
        drawn()
    }

    /// Keys read at once, as the shell hands them over: each key, then the filter they typed
    /// read once, then a frame drawn. Returns the effects they asked for.
    @discardableResult
    mutating func press(_ keys: Key...) -> [HomeEffect] {
        press(keys)
    }

    @discardableResult
    mutating func press(_ keys: [Key]) -> [HomeEffect] {
        var made: [HomeEffect] = []
        for key in keys where !state.quitting {
            made += state.apply(.key(key))
        }
        made += state.apply(.keysHandled)
        effects += made
        drawn()
        return made
    }

    /// `text` typed as characters read at once.
    @discardableResult
    mutating func type(_ text: String) -> [HomeEffect] {
        press(text.map { .character($0) })
    }

    /// An event other than keys, then a frame drawn.
    @discardableResult
    mutating func send(_ event: HomeEvent) -> [HomeEffect] {
        let made = state.apply(event)
        effects += made
        drawn()
        return made
    }

    /// A frame drawn, as the loop draws one after each event: a question on the status line is
    /// shown from then on, and the filter's matches are counted when no key waits.
    private mutating func drawn() {
        _ = HomeFrame.draw(state)
        _ = state.apply(.drawn)
        if state.list.awaitsCount { _ = state.apply(.idle) }
    }

    var frame: TerminalFrame { HomeFrame.draw(state) }
    var screen: String { frame.text }
    var lines: [String] { frame.lines }
    var status: String { lines[state.view.layout.status] }
    var playerLine: String { lines[state.view.layout.player] }
    /// The titles of the list's rows, as drawn.
    var listed: [String] {
        let layout = state.view.layout
        return lines[layout.list].compactMap { line in
            guard let icon = line.firstIndex(where: { $0 == "♪" || $0 == "▣" }) else { return nil }
            return String(line[line.index(after: icon)...].dropFirst()).components(separatedBy: "  ").first
        }
    }
    var selected: Recording? { state.list.selectedRecording }
    var message: String? { state.dialog.message?.text }
}
