import CraveyKit
import Foundation
import Synchronization

/// The pipe signals are handed over through, and the thread that reads it (``OnSignals``).
final class SignalPipe: Sendable {
    static let shared = SignalPipe()

    /// The pipe's write end, for the signal handler, which may only call async-signal-safe
    /// functions: it loads this (a lock-free atomic) and calls `write`. Set once, before any
    /// handler is installed; -1 until then.
    private static let input = Atomic<Int32>(-1)

    private let actions = Locked<[Int32: @Sendable () -> Void]>([:])
    /// What each caught signal did before it was first caught, to give it back.
    private let before = Locked<[Int32: SavedAction]>([:])

    /// A signal's action as `sigaction` reports it.
    // @unchecked Sendable: a plain C struct (a C function pointer, flags and a mask), copied.
    private struct SavedAction: @unchecked Sendable {
        var action: sigaction
    }

    private init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fatalError("cravey: cannot make a pipe for signals: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        Self.input.store(ends[1], ordering: .releasing)
        let output = ends[0]
        let thread = Thread { [actions] in
            var number: Int32 = 0
            while true {
                let count = withUnsafeMutableBytes(of: &number) { read(output, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count == MemoryLayout<Int32>.size else { return }
                actions.withLock { $0[number] }?()
            }
        }
        thread.name = "cravey.signals"
        thread.start()
    }

    /// Catches `numbers`, each running `action`. The corresponding C function is `sigaction`.
    func install(_ numbers: [Int32], _ action: @escaping @Sendable () -> Void) {
        actions.withLock { actions in for number in numbers { actions[number] = action } }
        for number in numbers {
            before.withLock { before in
                guard before[number] == nil else { return }
                var old = sigaction()
                sigaction(number, nil, &old)
                before[number] = SavedAction(action: old)
            }
            var caught = sigaction()
            caught.__sigaction_handler.sa_handler = { number in
                var number = number
                let input = SignalPipe.input.load(ordering: .acquiring)
                _ = withUnsafeBytes(of: &number) { write(input, $0.baseAddress, $0.count) }
            }
            caught.sa_flags = SA_RESTART
            sigemptyset(&caught.sa_mask)
            sigaction(number, &caught, nil)
        }
    }

    /// Gives `numbers` back what they did before they were first caught: their default action,
    /// or being ignored (as cravey-media ignores SIGUSR1 and SIGUSR2 where nothing uses them).
    func remove(_ numbers: [Int32]) {
        for number in numbers {
            var old = before.withLock { $0.removeValue(forKey: number) }?.action ?? sigaction()
            sigaction(number, &old, nil)
        }
        actions.withLock { actions in for number in numbers { actions[number] = nil } }
    }
}
