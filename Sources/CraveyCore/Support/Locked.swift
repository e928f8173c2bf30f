import Foundation

/// A value behind a lock, with `Synchronization.Mutex`'s `withLock`, over a pthread mutex
/// (`NSLock`).
///
/// Not `Mutex` itself: on Linux it waits on a futex inside the Synchronization module, which
/// ThreadSanitizer cannot see, so every access it guards reads as a race to TSan (two threads
/// adding 1 under `Mutex.withLock` in a 10-line program are reported), and `scripts/test
/// --sanitize thread` could say nothing about that state. TSan sees a pthread mutex.
// @unchecked Sendable: `value` is only touched inside `withLock`, with `lock` held; values go in
// and out `sending`, as with Mutex.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: consuming sending Value) {
        self.value = value
    }

    /// Runs `body` with the value, the lock held. The corresponding C functions are
    /// `pthread_mutex_lock` and `pthread_mutex_unlock`.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
