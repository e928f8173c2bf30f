import Foundation

/// Wakes a waiting thread when a folder's entries change: an inotify descriptor on it (no timer,
/// no listing read again until the kernel says something changed), to poll beside others.
package final class FolderWatch: Sendable {
    /// The inotify descriptor, readable once something changed.
    package let descriptor: Int32

    /// Watches `folder` for files made, closed after a write, renamed away or removed; nil when
    /// it cannot be watched (no such folder, no inotify). The corresponding C functions are
    /// `inotify_init1` and `inotify_add_watch`.
    package init?(_ folder: URL) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let events = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_DELETE_SELF)
        guard inotify_add_watch(descriptor, folder.path, events) >= 0 else {
            close(descriptor)
            return nil
        }
    }

    deinit { close(descriptor) }

    /// Reads the changes waiting, without blocking, so that the descriptor is not readable until
    /// the next one.
    package func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 || errno == EINTR {}
    }
}
