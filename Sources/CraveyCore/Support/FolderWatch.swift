import Foundation

/// Wakes a waiting thread when a folder's entries change: an inotify descriptor on it (no timer,
/// no listing read again until the kernel says something changed), to poll beside others.
package final class FolderWatch: Sendable {
    /// The inotify descriptor, readable once something changed.
    package let descriptor: Int32

    /// Files made, closed after a write, renamed away or removed, and the folder itself removed.
    package static let entries = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_DELETE_SELF)

    /// Watches `folder` for `events` (inotify's `IN_` flags); nil when it cannot be watched (no
    /// such folder, no inotify). The corresponding C functions are `inotify_init1` and
    /// `inotify_add_watch`.
    package init?(_ folder: URL, events: UInt32 = FolderWatch.entries) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        guard add(folder, events: events) else {
            close(descriptor)
            return nil
        }
    }

    deinit { close(descriptor) }

    /// Watches `folder` too, on the same descriptor, for `events`; false when it cannot be
    /// watched (not there, or inotify's limit reached). Watching a folder twice is once. The
    /// corresponding C function is `inotify_add_watch`.
    @discardableResult
    package func add(_ folder: URL, events: UInt32 = FolderWatch.entries) -> Bool {
        inotify_add_watch(descriptor, folder.path, events) >= 0
    }

    /// Reads the changes waiting, without blocking, so that the descriptor is not readable until
    /// the next one; returns the names of the entries they were about.
    @discardableResult
    package func drain() -> Set<String> {
        var names: Set<String> = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return names }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset, as: inotify_event.self).len) }
                let nameBytes = buffer[(offset + header)..<min(offset + header + length, count)]
                names.insert(String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self))
                offset += header + length
            }
        }
    }
}
