import CraveyKit
import Foundation

/// Work handed to the home screen's thread by others (a playback's events, a save that ended,
/// a signal), and the pipe that wakes that thread while it sleeps in `poll`: it runs the work
/// in the order it came, on its own thread, where the screen's state lives.
final class HomeInbox: Sendable {
    /// The pipe's reading end, which the home screen's thread polls.
    let readable: Int32
    private let writable: Int32
    private let pending = Locked<[@Sendable (HomeScreen) -> Void]>([])

    /// The corresponding C functions are `pipe` and `fcntl`.
    init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            fatalError("cravey: cannot make a pipe for the home screen: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        (readable, writable) = (ends[0], ends[1])
    }

    deinit {
        close(readable)
        close(writable)
    }

    /// Hands `work` to the home screen's thread, from any thread.
    func post(_ work: @escaping @Sendable (HomeScreen) -> Void) {
        let first = pending.withLock { pending in
            pending.append(work)
            return pending.count == 1
        }
        // One byte wakes the thread; more would only fill the pipe.
        guard first else { return }
        var byte: UInt8 = 1
        while write(writable, &byte, 1) < 0, errno == EINTR {}
    }

    /// Whether work was posted and not taken yet (from any thread; a lock, no system call).
    var hasWork: Bool {
        pending.withLock { !$0.isEmpty }
    }

    /// The work posted since the last call, the pipe emptied first (on the home screen's thread).
    func take() -> [@Sendable (HomeScreen) -> Void] {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readable, &bytes, bytes.count) > 0 {}
        return pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
    }
}
