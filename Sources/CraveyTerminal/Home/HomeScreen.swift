import CraveyCommands
import CraveyKit
import Foundation

/// The home screen (`cravey` alone on a terminal): Quick Play, the library a page at a time,
/// the selected clip, a player line and a status line, in one full-screen app that plays,
/// records, edits and deletes.
///
/// One thread owns it all: the terminal (``TerminalScreen``), what is shown, and the plays and
/// recordings under way. It sleeps in `poll` on the terminal, on ``HomeInbox``'s pipe (work
/// posted by the media's tasks and by the signal thread) and on the library folder's inotify
/// descriptor (``LibraryWatch``), and wakes only when one of them has something: no timer runs
/// while nothing plays or records. Reads go through the store's snapshots a page at a time
/// (``LibraryPage``); every change goes through the library's door, off this thread.
///
/// The parts: this file (the loop, the list, the keys that browse), `+Draw` (what is drawn
/// where), `+Play` (the player line), `+Record` (recording and the look back), `+Change`
/// (edit, delete, the prompts).
package final class HomeScreen {
    /// What the keys do now, besides the player's and the recorder's keys.
    enum Mode {
        case browsing
        /// Typing the filter (the words before it started, for Escape).
        case filtering
        case help
        /// A line being typed on the status line.
        case prompt(Prompt)
        /// A yes-or-no question on the status line: what a yes does to this clip, as the
        /// question showed it (a yes changes it only while it is still so).
        case confirm(question: String, asked: ClipVersion, yes: Confirmed)
    }

    /// What a yes to a question does.
    enum Confirmed {
        /// `d`: deletes the selected clip.
        case delete
        /// The look back's `d`: deletes the clip just recorded.
        case discard
        /// `x`: cuts the clip to the part from `start` to `end` seconds.
        case cut(start: Double, end: Double)

        /// What a no to the question about `recording` says.
        func declined(_ recording: Recording) -> String {
            switch self {
            case .discard: "Not discarded."
            case .cut: "Nothing was cut."
            case .delete: "Kept \"\(Format.visible(recording.title))\"."
            }
        }
    }

    /// A line a person types: its question, what is typed so far and what it is for.
    struct Prompt {
        enum Purpose {
            /// `e`: the title, the notes, then the purpose of a clip (`answers` so far).
            case edit(ClipVersion, answers: [String])
            /// The look back's `t`, `n` or `u`: one word of the clip just recorded.
            case lookBack(ClipVersion, field: Int)
        }
        var question: String
        var text: String
        var purpose: Purpose

        /// What refusing a line break in it says, as `cravey record`'s look back refuses one: a
        /// title, notes or purpose typed here is one line.
        var lineBreakRefused: String {
            let field = switch purpose {
            case .edit(_, let answers): answers.count
            case .lookBack(_, let field): field
            }
            return "A line break (pasted?) cannot go in the \(["title", "notes", "purpose"][field]): nothing was changed."
        }
    }

    /// The list: its order, filter, page and selection.
    var browser: LibraryBrowser
    let inbox = HomeInbox()
    var screen: TerminalScreen
    var watch: LibraryWatch?
    var mode = Mode.browsing {
        // A question asked now has not been shown yet (``questionShown``).
        didSet { questionShown = false }
    }
    /// Whether the question on the status line (``Mode/confirm(question:asked:yes:)``) has
    /// been drawn: only a key read after that answers it, as `cravey`'s questions read only what
    /// is typed after they ask.
    private var questionShown = false
    /// Set once the terminal is gone (hung up, closed): it is not waited on any more.
    private var terminalGone = false
    /// What the status line says until the next key: a result, or a refusal (`warning`).
    var message: (text: String, warning: Bool)?
    /// The clip whose waveform is kept, and the waveform (nil: none stored).
    var shownWaveform: (id: RecordingID, waveform: Waveform?)?
    /// Where things were drawn, for the mouse.
    var layout: HomeLayout {
        didSet { browser.rows = max(layout.list.count, 1) }
    }
    /// The columns of the player line's bar, while it shows one.
    var playerBar: Range<Int>?

    var playing: Playing?
    /// A play asked for and not started yet.
    var startingPlay: Recording?
    var capture: Capture?
    /// A recording asked for and not started yet, or one stopped and not saved yet.
    var recorderBusy = false
    /// The clip just recorded, while its look back is open.
    var lookBack: Recording?
    /// The speed the next play starts at: the last one chosen, as mpv keeps it.
    var speed = 1.0

    /// Set by `q`, Ctrl-C, SIGTERM or SIGHUP: the loop ends once the play is counted and the
    /// recording saved.
    var quitting = false
    /// What to say on stderr once the terminal is given back (a recording saved on the way out).
    var farewell: [String] = []

    /// The signals the home screen takes over while it runs.
    private static let signals = [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGCONT]

    private init(library: RecordingLibrary, screen: TerminalScreen) {
        browser = LibraryBrowser(library: library)
        self.screen = screen
        layout = HomeLayout(rows: screen.rows, columns: screen.columns)
        browser.rows = max(layout.list.count, 1)
    }

    /// The library: the one the list reads, and the one changes go to through its door.
    var library: RecordingLibrary {
        get { browser.library }
        set { browser.library = newValue }
    }

    /// Runs the home screen on the terminal until it is left; the terminal is given back on
    /// every way out. Throws `.invalidInput` when stdin and stdout are not a terminal that can
    /// show it.
    package static func run(_ library: RecordingLibrary) async throws {
        guard isatty(0) == 1, isatty(1) == 1 else {
            throw CraveyError(.invalidInput, "The home screen needs a terminal on stdin and stdout. Run `cravey` in a terminal, or use the commands one by one (`cravey --help` lists them).")
        }
        let farewell = try await onDedicatedThread(named: "cravey.home") { () throws -> [String] in
            // Caught before ncurses starts, so it installs no handlers of its own; the actions
            // are set once the screen exists.
            let signals = OnSignals(Self.signals) {}
            defer { signals.cancel() }
            let colour = (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
            let home = HomeScreen(library: library, screen: try TerminalScreen(colour: colour))
            signals.handle { [inbox = home.inbox] in inbox.post { $0.quit() } }
            SignalPipe.shared.install([SIGWINCH]) { [inbox = home.inbox] in inbox.post { $0.resized() } }
            SignalPipe.shared.install([SIGTSTP]) { [inbox = home.inbox] in inbox.post { $0.suspend() } }
            SignalPipe.shared.install([SIGCONT]) { [inbox = home.inbox] in inbox.post { $0.continued() } }
            defer { home.screen.end() }
            try home.loop()
            return home.farewell
        }
        for line in farewell { Terminal.diagnostic(line) }
    }

    // MARK: - The loop

    /// How long the library must be still after a write before it is read again: a commit
    /// writes the write-ahead log (which inotify sees) just before it updates the log's index in
    /// shared memory (which it does not), so a read at once could miss it.
    static let settling: Int32 = 30

    /// Reads, draws and waits until it is time to go. The corresponding C function is `poll`.
    private func loop() throws {
        try browser.read()
        watch = LibraryWatch(folder: library.url)
        // A write seen and not read yet: the wait is cut short by `settling` ms, the only time
        // the loop wakes without an event.
        var unsettled = false
        while !(quitting && playing == nil && startingPlay == nil && capture == nil && !recorderBusy) {
            draw()
            if case .confirm = mode { questionShown = true }
            // The filter's count, once the rows it shows are drawn and no key is waiting: while
            // a person types, each keystroke reads only the rows it shows.
            if browser.awaitsCount, !inputWaiting() {
                updateList { try $0.count() }
                continue
            }
            var descriptors = [pollfd(fd: terminalGone ? -1 : 0, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: inbox.readable, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: watch?.descriptor ?? -1, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 3, unsettled ? Self.settling : -1)
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { throw CraveyError(.other, "Cannot wait for the terminal: \(String(cString: strerror(errno))).") }
            if ready == 0 {
                unsettled = false
                refresh()
                continue
            }
            // Work posted (a signal's among it) before what the terminal holds: a hang-up or
            // Ctrl-C is taken before keys queued up.
            for work in inbox.take() { work(self) }
            if descriptors[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                // The terminal is gone (closed, hung up; its SIGHUP may come later or never):
                // leave as SIGHUP does, whatever it still held unread.
                terminalGone = true
                quit()
            } else if descriptors[0].revents & Int16(POLLIN) != 0 {
                handle(screen.keys())
            }
            if let watch, descriptors[2].revents != 0, watch.changed() { unsettled = true }
        }
    }

    /// Whether a key (or posted work) is waiting. The corresponding C function is `poll`.
    private func inputWaiting() -> Bool {
        var descriptors = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: inbox.readable, events: Int16(POLLIN), revents: 0)]
        return poll(&descriptors, 2, 0) > 0
    }

    // MARK: - The list

    /// Changes what the list shows (``LibraryBrowser``): a failure to read is said on the
    /// status line.
    func updateList(_ change: (inout LibraryBrowser) throws -> Void) {
        do {
            try change(&browser)
        } catch {
            say(error)
        }
    }

    /// The selected clip, when it is on the page read.
    var selectedRecording: Recording? { browser.selectedRecording }

    /// Reads again what is shown, after a change of the library (this process's or another's),
    /// and watches the library folder once it exists.
    func refresh() {
        updateList { try $0.refresh() }
        if watch == nil { watch = LibraryWatch(folder: library.url) }
    }

    // MARK: - Keys

    /// The keys read at once (all that the terminal held), in order. Work posted meanwhile
    /// (a signal's) is taken before the next key; the filter typed is read once, after the keys
    /// that type it (``LibraryBrowser/type(filter:)``). An Enter answering a line with more keys
    /// after it, read at once or within 30 ms, is a paste on a terminal without bracketed paste
    /// (a person does not type a key and the next within a read): the line is refused and
    /// nothing of the paste is a key.
    private func handle(_ keys: [TerminalScreen.Key]) {
        var keys = keys[...]
        while let key = keys.popFirst() {
            if inbox.hasWork { for work in inbox.take() { work(self) } }
            if quitting { return }
            if case .prompt(let prompt) = mode, key == .enter, !keys.isEmpty || screen.inputArrives(within: 30) {
                mode = .browsing
                message = (prompt.lineBreakRefused, true)
                screen.dropWaitingInput()
                break
            }
            let typesFilter = if case .filtering = mode { key.editsLine } else { false }
            if !typesFilter { updateList { try $0.readTypedFilter() } }
            handle(key)
        }
        updateList { try $0.readTypedFilter() }
    }

    private func handle(_ key: TerminalScreen.Key) {
        if quitting { return }
        if case .paste(let text) = key { return paste(text) }
        message = nil
        switch mode {
        case .help:
            mode = .browsing
        case .filtering:
            filter(key)
        case .prompt(let prompt):
            type(key, into: prompt)
        case .confirm(_, let asked, let yes):
            // A key typed before the question showed is no answer: it is dropped.
            guard questionShown else { return }
            mode = .browsing
            let recording = asked.recording
            if key == .character("y") || key == .character("Y") {
                switch yes {
                case .delete: delete(asked)
                case .discard: discard(asked)
                case .cut(let start, let end): cut(asked, from: start, to: end)
                }
            } else {
                message = (yes.declined(recording), false)
            }
        case .browsing:
            if recordingKey(key) || playerKey(key) || lookBackKey(key) { return }
            browse(key)
        }
    }

    /// The keys of the list, Quick Play and the actions on the selected clip.
    private func browse(_ key: TerminalScreen.Key) {
        let rows = browser.rows, quickPlay = browser.page.quickPlay
        switch key {
        case .character("j"), .down: updateList { try $0.move(by: 1) }
        case .character("k"), .up: updateList { try $0.move(by: -1) }
        case .pageDown: updateList { try $0.move(by: rows) }
        case .pageUp: updateList { try $0.move(by: -rows) }
        case .character("g"), .home: updateList { try $0.select(0) }
        case .character("G"), .end: updateList { try $0.select($0.page.matching - 1) }
        case .wheelDown: updateList { try $0.scroll(by: 3) }
        case .wheelUp: updateList { try $0.scroll(by: -3) }
        case .click(let row, let column): click(row: row, column: column)
        case .character("s"): updateList { try $0.nextSort() }
        case .character("/"):
            mode = .filtering
        case .escape where !browser.request.filter.isEmpty:
            updateList { try $0.filter("") }
        case .enter:
            if let recording = selectedRecording { play(recording) }
        case .character(let digit) where ("1"..."3").contains(digit):
            let index = digit.wholeNumberValue! - 1
            if quickPlay.indices.contains(index) {
                play(quickPlay[index])
            } else {
                message = (quickPlay.isEmpty ? "Quick Play is empty: press r to record your first clip." : "Quick Play has \(quickPlay.count) clip\(quickPlay.count == 1 ? "" : "s").", false)
            }
        case .character("r"): record(video: false)
        case .character("R"): record(video: true)
        case .character("e"):
            if let recording = selectedRecording { edit(recording) }
        case .character("d"):
            if let recording = selectedRecording {
                mode = .confirm(question: "Delete \"\(Format.visible(recording.title))\"? This cannot be undone. [y/N]", asked: library.version(of: recording), yes: .delete)
            }
        case .character("x"):
            if let recording = selectedRecording { proposeCut(recording) }
        case .character("D"):
            message = ("Deleting every clip is a command of its own: `cravey delete-all`.", false)
        case .character("?"):
            mode = .help
        case .control("l"):
            // Another program wrote over the screen: drawn whole again, as in vim and cmus.
            screen.redrawAll()
        case .character("q"):
            quit()
        default:
            break
        }
    }

    /// A paste: text, never keys. The filter takes it (its line breaks and control characters as
    /// spaces); a line typed takes it unless it holds a line break (as `cravey record`'s look
    /// back, a line is one line); anywhere else it is no key, and no answer to a question.
    private func paste(_ text: String) {
        switch mode {
        case .filtering:
            let words = text.split(whereSeparator: { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } })
            browser.type(filter: browser.typedFilter + words.joined(separator: " "))
        case .prompt(var prompt):
            guard !text.contains(where: \.isNewline) else {
                mode = .browsing
                message = (prompt.lineBreakRefused, true)
                return
            }
            message = nil
            prompt.text += text
            mode = .prompt(prompt)
        case .confirm(_, let asked, let yes):
            mode = .browsing
            message = ("Pasted text is no answer. \(yes.declined(asked.recording))", true)
        case .browsing, .help:
            message = ("Pasted text is not a key: nothing was done.", true)
        }
    }

    /// Typing the filter: the list follows the keys typed (read once for those read at once).
    private func filter(_ key: TerminalScreen.Key) {
        let filter = browser.typedFilter
        let setFilter = { (text: String) in self.browser.type(filter: text) }
        switch key {
        case .enter, .tab:
            mode = .browsing
        case .escape:
            mode = .browsing
            setFilter("")
        case .backspace:
            setFilter(String(filter.dropLast()))
        case .control("u"):
            setFilter("")
        case .control("w"):
            let trimmed = filter.reversed().drop(while: { $0 == " " }).drop(while: { $0 != " " })
            setFilter(String(trimmed.reversed()))
        case .character(let character):
            setFilter(filter + String(character))
        case .down, .up, .pageDown, .pageUp, .wheelUp, .wheelDown, .click:
            updateList { try $0.readTypedFilter() }
            browse(key)
        default:
            break
        }
    }

    /// A click: a row of the list selects it, a row of Quick Play plays it, the bar of the
    /// player line goes to that point.
    private func click(row: Int, column: Int) {
        if layout.list.contains(row) {
            updateList { try $0.select(shownRow: row - layout.list.lowerBound) }
        } else if let index = layout.quickPlayRows.firstIndex(of: row), browser.page.quickPlay.indices.contains(index) {
            play(browser.page.quickPlay[index])
        }
    }

    // MARK: - Leaving

    /// Ends the home screen (q, Ctrl-C, SIGTERM, SIGHUP): a play is stopped and counted, a
    /// recording stopped and saved, and the loop ends once they are.
    func quit() {
        quitting = true
        playing?.manager.stop()
        capture?.recorder.stop()
    }

    /// The terminal changed size (SIGWINCH): everything is laid out again.
    func resized() {
        screen.resize()
        layout = HomeLayout(rows: screen.rows, columns: screen.columns)
        refresh()
    }

    /// Ctrl-Z (SIGTSTP): pauses what plays or records, gives the terminal back and stops the
    /// process; after `fg` takes the terminal again and redraws. The corresponding C function is
    /// `kill`.
    func suspend() {
        if let playing, playing.event.state == .playing { playing.manager.pause() }
        if let capture, !capture.recorder.isPaused { capture.recorder.pause() }
        screen.suspend()
        // Stopped by the signal's default action; `kill` returns once SIGCONT has come.
        SignalPipe.shared.remove([SIGTSTP])
        kill(getpid(), SIGTSTP)
        SignalPipe.shared.install([SIGTSTP]) { [inbox] in inbox.post { $0.suspend() } }
        screen.resume()
        layout = HomeLayout(rows: screen.rows, columns: screen.columns)
        if playing != nil || capture != nil { message = ("Paused while suspended: space goes on.", false) }
        refresh()
    }

    /// SIGCONT without a Ctrl-Z of ours (a `kill -STOP` then `-CONT`): the terminal may have
    /// been changed meanwhile, so it is taken again and drawn whole.
    func continued() {
        screen.resume()
        layout = HomeLayout(rows: screen.rows, columns: screen.columns)
        refresh()
    }

    // MARK: - Messages

    /// Shows what a person reads of `error` on the status line.
    func say(_ error: any Error, _ suffix: String = "") {
        let text = (error as? CraveyError).map { Messages.text(for: $0) } ?? "\(error)"
        message = (text + suffix, true)
    }
}
