import CraveyCore
import Foundation

/// Tells the home screen when the library's database changed, whoever changed it (another
/// `cravey`, an embedder, this process): inotify on the library folder (``FolderWatch``), for
/// writes to `library.sqlite` and its write-ahead log, where every commit lands. No timer, no
/// reading of the table: the screen sleeps until the kernel says a commit was written, then reads
/// again what it shows.
///
/// Readers write nothing there (only the `-shm` index, which is left out), so the screen's own
/// reads never wake it.
final class LibraryWatch {
    private let watch: FolderWatch
    private static let names: Set<String> = [AppDatabase.fileName, AppDatabase.fileName + "-wal"]

    /// Watches `folder`; nil when it cannot be watched (no such folder yet, no inotify).
    init?(folder: URL) {
        guard let watch = FolderWatch(folder, events: UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_CLOSE_WRITE)) else { return nil }
        self.watch = watch
    }

    /// The inotify descriptor, to poll.
    var descriptor: Int32 { watch.descriptor }

    /// Reads the events waiting, without blocking; true when one was about the database.
    func changed() -> Bool {
        !watch.drain().isDisjoint(with: Self.names)
    }
}
