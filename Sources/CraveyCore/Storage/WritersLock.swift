import Foundation
import SystemPackage

/// The writers' lock of one library: an exclusive `flock` on `library.lock`, which the kernel
/// drops when its process dies. Every change of the library holds it (``LibraryStore/write(_:)``);
/// readers never take it.
///
/// Each hold opens the lock file anew: `flock` locks belong to an open file, so two threads of
/// one process exclude each other as two processes do, with no lock of the process's own around
/// it. It is never taken again by a thread that holds it: that would wait for itself, and is a
/// programming error caught at once.
package struct WritersLock: Sendable {
    /// The lock file in the library folder.
    package static let fileName = "library.lock"

    private let folder: FileDescriptor
    private let url: URL
    /// The threads holding the lock now (at most one per process, between waits).
    private let holders = Locked<Set<UInt>>([])

    init(beneath folder: FileDescriptor, shownAs libraryURL: URL) {
        self.folder = folder
        url = libraryURL.appendingPathComponent(Self.fileName)
    }

    /// Runs `body` holding the lock, waiting for another holder to finish first. The lock file is
    /// created (0600) when missing; a read-only library's is locked as it is. A lock that cannot
    /// be taken is `.cannotWrite`, never a silent "no lock". The corresponding C functions are
    /// `openat` and `flock` with `LOCK_EX`.
    package func hold<T>(_ body: () throws -> T) throws -> T {
        let thread = UInt(pthread_self())
        let taken = holders.withLock { $0.insert(thread).inserted }
        precondition(taken, "The library's writers' lock was taken again by the thread that holds it.")
        defer { _ = holders.withLock { $0.remove(thread) } }
        var descriptor = openat(folder.rawValue, Self.fileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor < 0, [EROFS, EACCES, EPERM].contains(errno) {
            descriptor = openat(folder.rawValue, Self.fileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard descriptor >= 0 else { throw FileStorageManager.writeError(errno, url, doing: "open the library's lock file") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw FileStorageManager.writeError(errno, url, doing: "lock") }
        }
        return try body()
    }
}
