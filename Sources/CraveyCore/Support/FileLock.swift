import Foundation
import SystemPackage

/// An exclusive `flock` on a file, held until this object is released. The kernel drops it when
/// the process dies, so others can tell a live writer from a file a crash left behind.
package final class FileLock {
    private var descriptor: FileDescriptor?

    /// Opens (never through a link) and locks `url`. The corresponding C function is `flock`.
    package init?(_ url: URL) {
        guard let descriptor = try? FileDescriptor.open(FilePath(url.path), .readOnly, options: [.noFollow, .closeOnExec]) else {
            return nil
        }
        guard flock(descriptor.rawValue, LOCK_EX | LOCK_NB) == 0 else {
            try? descriptor.close()
            return nil
        }
        self.descriptor = descriptor
    }

    /// Unlocks now rather than when the object goes away.
    package func release() {
        try? descriptor?.close()
        descriptor = nil
    }

    deinit { release() }
}

@available(*, unavailable)
extension FileLock: Sendable {}
