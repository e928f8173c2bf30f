import CraveyCore
import Foundation

/// Tells the home screen when the library's database changed, whoever changed it (another
/// `cravey`, an embedder, this process): inotify on the library folder, for writes to
/// `library.sqlite` and its write-ahead log, where every commit lands. No timer, no reading of
/// the table: the screen sleeps until the kernel says a commit was written, then reads again
/// what it shows.
///
/// Readers write nothing there (only the `-shm` index, which is left out), so the screen's own
/// reads never wake it.
final class LibraryWatch {
    /// The inotify descriptor, to poll.
    let descriptor: Int32
    private static let names: Set<String> = [AppDatabase.fileName, AppDatabase.fileName + "-wal"]

    /// Watches `folder`; nil when it cannot be watched (no such folder yet, no inotify).
    /// The corresponding C functions are `inotify_init1` and `inotify_add_watch`.
    init?(folder: URL) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let events = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_CLOSE_WRITE)
        guard inotify_add_watch(descriptor, folder.path, events) >= 0 else {
            close(descriptor)
            return nil
        }
    }

    deinit { close(descriptor) }

    /// Reads the events waiting, without blocking; true when one was about the database.
    func changed() -> Bool {
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return changed }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset, as: inotify_event.self).len) }
                let nameBytes = buffer[(offset + header)..<min(offset + header + length, count)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                if Self.names.contains(name) { changed = true }
                offset += header + length
            }
        }
    }
}
