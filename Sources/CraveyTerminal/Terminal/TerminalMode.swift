import CraveyKit
import Foundation
import Synchronization

/// The terminal on stdin as this process found it, lent for reading keys (non-canonical, no
/// echo, a paste marked as one: bracketed paste) and for xterm's mouse reporting, and given back
/// on every way out: the borrower's own
/// ``giveBack()``, Ctrl-Z (SIGTSTP: given back before the process stops; SIGCONT: taken again,
/// and the borrower draws its line again), an `exit` on the way, and a crash (a fatal signal's
/// handler gives it back before the signal does what it did before).
///
/// One borrower at a time: the player's or the recorder's ``KeyReader``, or the look back
/// waiting for a key.
enum TerminalMode {
    /// Nothing lent: the terminal is as found.
    private static let asFound = 0
    /// Lent for keys.
    private static let keys = 1
    /// Lent for keys, with mouse reporting on.
    private static let keysAndMouse = 2

    /// What is lent now (one of the three above). A signal handler reads it: a lock-free atomic.
    private static let lent = Atomic<Int>(asFound)
    /// Whether mouse reporting was asked for and not yet turned off.
    private static let reportingMouse = Atomic<Bool>(false)
    /// Whether bracketed paste was asked for and not yet turned off.
    private static let bracketingPaste = Atomic<Bool>(false)
    /// Set once the mode found is kept in ``found`` and the handlers are installed.
    private static let prepared = Atomic<Bool>(false)
    /// The terminal's mode as found, kept before the first lending, read by the fatal signals'
    /// handler (which may call only async-signal-safe functions, so no lock).
    // nonisolated(unsafe): written once, by the first ``lend(mouse:)``, before any handler that
    // reads it is installed and before ``prepared`` is set; only read after.
    private nonisolated(unsafe) static let found = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    /// What each fatal signal did before the handler was installed, by signal number.
    // nonisolated(unsafe): written for each signal before its handler is installed; only read after.
    private nonisolated(unsafe) static let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: Int(NSIG))
    /// Draws the borrower's line again once the terminal is taken back after a stop.
    private static let redrawing = Locked<(@Sendable () -> Void)?>(nil)

    /// The signals whose default action ends the process at once, for a fault of its own (or a
    /// `kill` of them): the terminal is given back before they do.
    private static let fatal = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS]

    /// Lends the terminal for keys: non-canonical, a byte at a time, without echo (Ctrl-C, Ctrl-Z
    /// and Ctrl-\ still send their signals), a paste marked as one (xterm's bracketed paste,
    /// `ESC [ ? 2004 h` on stderr, but on a terminal that only prints lines: ``KeyReader`` reads
    /// the marks); with `mouse`, asks the terminal on stderr to report clicks (xterm's SGR
    /// reporting, `ESC [ ? 1000 h` and `ESC [ ? 1006 h`). `redraw` draws the
    /// borrower's line again after a stop. The corresponding C functions are `tcgetattr` and
    /// `tcsetattr`.
    static func lend(mouse: Bool, redraw: (@Sendable () -> Void)? = nil) {
        prepare()
        redrawing.withLock { $0 = redraw }
        lent.store(mouse ? keysAndMouse : keys, ordering: .sequentiallyConsistent)
        take()
    }

    /// Puts the terminal back as found (mode, mouse reporting off); nothing when nothing is lent.
    static func giveBack() {
        guard lent.exchange(asFound, ordering: .sequentiallyConsistent) != asFound else { return }
        redrawing.withLock { $0 = nil }
        restoreFound()
    }

    /// Sets the terminal for what is lent. The corresponding C function is `tcsetattr`.
    private static func take() {
        let what = lent.load(ordering: .sequentiallyConsistent)
        guard what != asFound else { return }
        var mode = found.pointee
        mode.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &mode.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSANOW, &mode)
        // As readline asks it of every terminal but a dumb one: one that does not know the mode
        // ignores it, as ECMA-48 has a private mode it does not know ignored.
        if !Terminal.isDumb {
            bracketingPaste.store(true, ordering: .sequentiallyConsistent)
            Terminal.diagnostic("\u{1B}[?2004h", terminator: "")
        }
        if what == keysAndMouse {
            reportingMouse.store(true, ordering: .sequentiallyConsistent)
            Terminal.diagnostic("\u{1B}[?1000h\u{1B}[?1006h", terminator: "")
        }
    }

    /// Puts the mode found back and turns bracketed paste and mouse reporting off if they are
    /// on, whatever ``lent`` says is lent (that stays as it is). Async-signal-safe: atomics,
    /// `tcsetattr` and `write`.
    private static func restoreFound() {
        guard prepared.load(ordering: .acquiring) else { return }
        tcsetattr(0, TCSANOW, found)
        if bracketingPaste.exchange(false, ordering: .sequentiallyConsistent) {
            // A static string: nothing allocated in a signal handler.
            let off: StaticString = "\u{1B}[?2004l"
            _ = write(2, off.utf8Start, off.utf8CodeUnitCount)
        }
        guard reportingMouse.exchange(false, ordering: .sequentiallyConsistent) else { return }
        // A static string: nothing allocated in a signal handler.
        let off: StaticString = "\u{1B}[?1000l\u{1B}[?1006l"
        _ = write(2, off.utf8Start, off.utf8CodeUnitCount)
    }

    /// Keeps the mode found and installs the handlers, once: SIGTSTP and SIGCONT (unless the
    /// process was started with SIGTSTP ignored: then Ctrl-Z stops nothing), the fatal
    /// signals', and one run by `exit`.
    private static func prepare() {
        guard !prepared.load(ordering: .acquiring) else { return }
        tcgetattr(0, found)
        // Every static the handlers read is made here, not lazily in a handler.
        _ = (lent.load(ordering: .relaxed), reportingMouse.load(ordering: .relaxed), bracketingPaste.load(ordering: .relaxed), previous)
        var stop = sigaction()
        sigaction(SIGTSTP, nil, &stop)
        let ignored = unsafeBitCast(stop.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
        if !ignored {
            SignalPipe.shared.install([SIGTSTP], suspend)
            SignalPipe.shared.install([SIGCONT], resumed)
        }
        for number in fatal {
            sigaction(number, nil, previous + Int(number))
            var caught = sigaction()
            caught.__sigaction_handler.sa_sigaction = { number, info, _ in
                TerminalMode.restoreFound()
                // What the signal did before (the Swift runtime's crash report, or the default
                // action), for this signal again: a fault happens again as the instruction runs
                // again; one sent with kill or raise (abort) is sent again.
                sigaction(number, TerminalMode.previous + Int(number), nil)
                if let info, info.pointee.si_code <= 0 { raise(number) }
            }
            caught.sa_flags = SA_SIGINFO | SA_ONSTACK
            sigemptyset(&caught.sa_mask)
            sigaction(number, &caught, nil)
        }
        atexit { TerminalMode.restoreIfLent() }
        prepared.store(true, ordering: .releasing)
    }

    /// Gives the terminal back at `exit` if it is still lent.
    private static func restoreIfLent() {
        if lent.load(ordering: .sequentiallyConsistent) != asFound { restoreFound() }
    }

    /// Ctrl-Z (SIGTSTP), on the signals' thread: gives the terminal back, then stops the process
    /// as the signal would have (its default action, sent again); SIGCONT takes it again.
    private static func suspend() {
        if lent.load(ordering: .sequentiallyConsistent) != asFound { restoreFound() }
        // Caught again once continued (``resumed()``): not before, or this would catch its own stop.
        SignalPipe.shared.remove([SIGTSTP])
        kill(getpid(), SIGTSTP)
    }

    /// SIGCONT, on the signals' thread: Ctrl-Z is caught again; the terminal, if lent and this
    /// process is in its foreground (`fg`, not `bg`), is taken again and the line drawn again.
    /// The corresponding C functions are `tcgetpgrp` and `getpgrp`.
    private static func resumed() {
        SignalPipe.shared.install([SIGTSTP], suspend)
        guard lent.load(ordering: .sequentiallyConsistent) != asFound, tcgetpgrp(0) == getpgrp() else { return }
        take()
        redrawing.withLock { $0 }?()
    }
}
