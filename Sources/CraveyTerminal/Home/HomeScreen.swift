import CraveyKit
import Foundation

/// The home screen (`cravey` alone on a terminal): Quick Play, the library a page at a time,
/// the selected clip, a player line and a status line, in one full-screen app that plays,
/// records, edits and deletes.
///
/// This is its shell: it owns the terminal (``TerminalScreen``), turns what happens into events
/// for the state (``HomeState/apply(_:)``, which decides what each does), carries out the
/// effects that returns through ``HomeWork``, and draws the frame the state makes
/// (``HomeFrame``). One thread runs it all. It sleeps in `poll` on the terminal, on
/// ``HomeInbox``'s pipe (work posted by the media's tasks and by the signal thread), on the
/// library folder's inotify descriptor (``LibraryWatch``) and on the sync folder's, where the
/// library syncs (``SyncWatch``: what lands is merged by ``SyncWork``), and wakes only when one of them has
/// something: no timer runs while nothing plays or records (but the 30 ms an Escape alone waits
/// for the rest of a key's sequence).
package final class HomeScreen {
    private(set) var state: HomeState
    private var screen: TerminalScreen
    /// The plays, recordings and changes under way, and the inbox their results come through.
    let work: HomeWork
    private var watch: LibraryWatch?
    /// The sync folder, where the library syncs with one (``SyncWatch``).
    private var syncWatch: SyncWatch?
    /// Set once the terminal is gone (hung up, closed): it is not waited on any more.
    private var terminalGone = false

    /// The signals the home screen takes over while it runs.
    private static let signals = [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGCONT]

    private init(library: RecordingLibrary, settings: AppSettings, screen: TerminalScreen) {
        state = HomeState(library: library, rows: screen.rows, columns: screen.columns, colour: screen.colour)
        self.screen = screen
        work = HomeWork(settings: settings)
    }

    /// Runs the home screen on the terminal until it is left; the terminal is given back on
    /// every way out, with `settings` (the loudness of its plays, titles on the desktop, the words
    /// heard after a recording). Throws `.invalidInput` when stdin and stdout are not a terminal
    /// that can show it.
    package static func run(_ library: RecordingLibrary, settings: AppSettings) async throws {
        guard Terminal.isTerminal(0), Terminal.isTerminal(1) else {
            throw CraveyError(.invalidInput, "The home screen needs a terminal on stdin and stdout. Run `cravey` in a terminal, or use the commands one by one (`cravey --help` lists them).")
        }
        let farewell = try await onDedicatedThread(named: "cravey.home") { () throws -> [String] in
            // Caught before ncurses starts, so it installs no handlers of its own; the actions
            // are set once the screen exists.
            let signals = OnSignals(Self.signals) {}
            defer { signals.cancel() }
            let colour = (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
            let home = HomeScreen(library: library, settings: settings, screen: try TerminalScreen(colour: colour))
            let inbox = home.work.inbox
            signals.handle { inbox.post { $0.send(.quit) } }
            // A change's send that failed is shown in the header, not on stderr under the screen.
            library.sync.whenUnsent { _, error in inbox.post { $0.send(.unsent(error, at: Date())) } }
            SignalPipe.shared.install([SIGWINCH]) { inbox.post { $0.resized() } }
            SignalPipe.shared.install([SIGTSTP]) { inbox.post { $0.suspend() } }
            SignalPipe.shared.install([SIGCONT]) { inbox.post { $0.continued() } }
            defer { home.screen.end() }
            try home.loop()
            return home.work.farewell
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
        try state.read()
        watch = LibraryWatch(folder: state.library.url)
        // What landed while the screen was closed is merged at once (a folder not there, a USB
        // stick unplugged, is said so: the header shows the failure).
        syncWatch = SyncWatch(state.library)
        if syncWatch != nil || (try? state.library.sync.joined()) != nil { send(.syncLanded) }
        // A write seen and not read yet: the wait is cut short by `settling` ms, the only time
        // the loop wakes without an event.
        var unsettled = false
        while !state.finished {
            screen.show(HomeFrame.draw(state))
            send(.drawn)
            // The filter's count, once the rows it shows are drawn and no key is waiting: while
            // a person types, each keystroke reads only the rows it shows.
            if state.list.awaitsCount, !inputWaiting() {
                send(.idle)
                continue
            }
            var descriptors = [pollfd(fd: terminalGone ? -1 : 0, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: work.inbox.readable, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: watch?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: syncWatch?.descriptor ?? -1, events: Int16(POLLIN), revents: 0)]
            // An Escape alone so far waits a moment for the rest of a key's sequence.
            let keyWaits = screen.keyWaits
            let ready = poll(&descriptors, 4, keyWaits ? KeyReader.Decoder.escapeDelay : unsettled ? Self.settling : -1)
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { throw CraveyError(.other, "Cannot wait for the terminal: \(String(cString: strerror(errno))).") }
            if ready == 0, keyWaits {
                handle(screen.keysWaited())
                continue
            }
            if ready == 0 {
                unsettled = false
                send(.libraryChanged)
                // A sync folder back after it was gone is watched again; a library that joined
                // one meanwhile (`cravey sync FOLDER`) from now on.
                syncWatch?.rescan()
                if syncWatch == nil, let made = SyncWatch(state.library) {
                    syncWatch = made
                    send(.syncLanded)
                }
                continue
            }
            // Work posted (a signal's among it) before what the terminal holds: a hang-up or
            // Ctrl-C is taken before keys queued up.
            for job in work.inbox.take() { job(self) }
            if descriptors[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                // The terminal is gone (closed, hung up; its SIGHUP may come later or never):
                // leave as SIGHUP does, whatever it still held unread.
                terminalGone = true
                send(.quit)
            } else if descriptors[0].revents & Int16(POLLIN) != 0 {
                handle(screen.keys())
            }
            if let watch, descriptors[2].revents != 0, watch.changed() { unsettled = true }
            if let syncWatch, descriptors[3].revents != 0, syncWatch.changed() { send(.syncLanded) }
        }
    }

    /// Whether a key (or posted work) is waiting. The corresponding C function is `poll`.
    private func inputWaiting() -> Bool {
        var descriptors = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: work.inbox.readable, events: Int16(POLLIN), revents: 0)]
        return poll(&descriptors, 2, 0) > 0
    }

    /// Hands `event` to the state and carries out the effects it returns (and those of what
    /// they say at once), on the library it reads; the library folder is watched once it exists.
    func send(_ event: HomeEvent) {
        var events = [event]
        while !events.isEmpty {
            for effect in state.apply(events.removeFirst()) {
                if effect == .redrawAll {
                    // Another program wrote over the screen: drawn whole again, as in vim and cmus.
                    screen.redrawAll()
                } else {
                    events += work.carry(effect, on: state.library)
                }
            }
        }
        if watch == nil { watch = LibraryWatch(folder: state.library.url) }
        // A device's folders made since (by the merge's sends, or Syncthing meanwhile).
        if case .synced = event { syncWatch?.rescan() }
    }

    /// The keys read at once (all that the terminal held), in order. Work posted meanwhile
    /// (a signal's) is taken before the next key; the filter typed is read once, after the keys
    /// that type it (``LibraryBrowser/type(filter:)``). An Enter answering a line with more keys
    /// after it, read at once or within 30 ms, is a paste on a terminal without bracketed paste
    /// (a person does not type a key and the next within a read): the line is refused and
    /// nothing of the paste is a key.
    private func handle(_ keys: [Key]) {
        var keys = keys[...]
        while let key = keys.popFirst() {
            if work.inbox.hasWork { for job in work.inbox.take() { job(self) } }
            if state.quitting { return }
            if state.dialog.typesLine, key == .enter, !keys.isEmpty || screen.inputArrives(within: 30) {
                send(.pastedLineBreak)
                screen.dropWaitingInput()
                break
            }
            send(.key(key))
        }
        send(.keysHandled)
    }

    // MARK: - Signals

    /// The terminal changed size (SIGWINCH): everything is laid out again.
    private func resized() {
        screen.resize()
        send(.resized(rows: screen.rows, columns: screen.columns, paused: false))
    }

    /// Ctrl-Z (SIGTSTP): pauses what plays or records, gives the terminal back and stops the
    /// process; after `fg` takes the terminal again and redraws. The corresponding C functions
    /// are `pthread_kill` and `pthread_sigmask`.
    private func suspend() {
        let paused = work.pause()
        screen.suspend()
        // Stopped by the signal's default action, sent to this thread with the signal unblocked
        // here, so that the stop begins before the call returns, and it returns once SIGCONT has
        // come. (Sent to the process, the kernel hands it to its main thread, and this one ran on
        // under load: it took the terminal again, mouse reporting on, before the process stopped.)
        SignalPipe.shared.remove([SIGTSTP])
        var stop = sigset_t(), mask = sigset_t()
        sigemptyset(&stop)
        sigaddset(&stop, SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &stop, &mask)
        pthread_kill(pthread_self(), SIGTSTP)
        pthread_sigmask(SIG_SETMASK, &mask, nil)
        SignalPipe.shared.install([SIGTSTP]) { [inbox = work.inbox] in inbox.post { $0.suspend() } }
        screen.resume()
        send(.resized(rows: screen.rows, columns: screen.columns, paused: paused))
    }

    /// SIGCONT without a Ctrl-Z of ours (a `kill -STOP` then `-CONT`): the terminal may have
    /// been changed meanwhile, so it is taken again and drawn whole.
    private func continued() {
        screen.resume()
        send(.resized(rows: screen.rows, columns: screen.columns, paused: false))
    }
}
