import Foundation

/// The library's writer lock: an exclusive `flock` on `library.lock` in the library folder, taken
/// by every step that changes files and rows together (see "Several processes, one library" in
/// the README). The kernel drops it when its process dies.
///
/// `flock` excludes other open files, in this process too; so one lock object per library
/// folder in a process, re-entrant on its thread (doctor saving a recovered clip takes it again)
/// and exclusive between threads.
final class LibraryLock: Sendable {
    private static let locks = Locked<[String: LibraryLock]>([:])
    /// Held by the thread that holds the `flock`, as often as it took it.
    private let thread = NSRecursiveLock()
    private let state = Locked<(depth: Int, descriptor: Int32)>((0, -1))

    /// The lock of the library folder at `path`.
    static func of(_ path: String) -> LibraryLock {
        locks.withLock { locks in
            if let lock = locks[path] { return lock }
            let lock = LibraryLock()
            locks[path] = lock
            return lock
        }
    }

    /// Takes the lock, waiting for another process to release it. `open` opens the lock file; a
    /// library where it cannot be opened (read-only, never written) has no writer to wait for.
    /// The corresponding C function is `flock` with `LOCK_EX`.
    func lock(opening open: () -> Int32) {
        thread.lock()
        state.withLock { state in
            if state.depth == 0 {
                state.descriptor = open()
                if state.descriptor >= 0 {
                    while flock(state.descriptor, LOCK_EX) != 0 && errno == EINTR {}
                }
            }
            state.depth += 1
        }
    }

    /// Releases what ``lock(opening:)`` took; the `flock` goes with the last release.
    func unlock() {
        state.withLock { state in
            state.depth -= 1
            if state.depth == 0, state.descriptor >= 0 {
                close(state.descriptor)
                state.descriptor = -1
            }
        }
        thread.unlock()
    }
}
