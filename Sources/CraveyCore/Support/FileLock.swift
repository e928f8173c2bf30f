import Foundation

/// An exclusive `flock` on a file, held until this object is released. The kernel drops it when
/// the process dies, so others can tell a live writer from a file a crash left behind.
package final class FileLock {
    private var descriptor: Int32

    /// Opens and locks `url`. The corresponding C function is `flock`.
    package init?(_ url: URL) {
        descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
    }

    /// Unlocks now rather than when the object goes away.
    package func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    deinit { release() }
}

@available(*, unavailable)
extension FileLock: Sendable {}
