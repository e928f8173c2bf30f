import Foundation
import SystemPackage

extension FileStorageManager {
    /// The lock file in the library folder (``exclusively(_:)``).
    package static let lockFile = "library.lock"

    /// Runs `body` holding the library's writers' lock (`library.lock`, `flock` `LOCK_EX`),
    /// waiting for another process to finish its step first, after finishing a `delete-all` a
    /// crash interrupted: a confirmed deletion is completed before anything else changes the
    /// library, and never undone. Re-entrant on one thread.
    ///
    /// A lock that cannot be taken (the lock file cannot be opened, `flock` fails) is an error
    /// of kind `.cannotWrite`, never a silent "no lock".
    package func exclusively<T>(_ body: () throws -> T) throws -> T {
        if let refusal = repository?.refusal { throw refusal }
        guard let root, let writersLock else { throw CraveyError(.notFound, "There is no library at \(libraryURL.path).") }
        try writersLock.lock(beneath: root, at: libraryURL)
        defer { writersLock.unlock() }
        if repository != nil, isDeletingAll { try finishPendingDeleteAll() }
        return try body()
    }

    /// Runs `body` holding the writers' lock, and nothing more: each write of the database's rows
    /// (``RecordingRepository``) is one, so that none lands between the steps of a `delete`, a
    /// `delete-all` or a repair, which hold the lock throughout.
    func holdingLock(_ body: () throws -> Void) throws {
        if let refusal = repository?.refusal { throw refusal }
        guard let root, let writersLock else { return try body() }
        try writersLock.lock(beneath: root, at: libraryURL)
        defer { writersLock.unlock() }
        try body()
    }

    /// Locks a `.partial`, `.importing` or `.finishing` file just created (through `descriptor`)
    /// for as long as this process owns it. Called under ``exclusively(_:)``, so no other process
    /// ever sees it unlocked. A lock that cannot be taken is an error: an unowned file would be
    /// taken for a crash's leftover. The corresponding C functions are `flock` and `fcntl`.
    func holdLive(_ url: URL, _ descriptor: FileDescriptor) throws {
        guard flock(descriptor.rawValue, LOCK_EX | LOCK_NB) == 0 else {
            throw CraveyError(.cannotWrite, "Cannot lock \(url.path) while writing it: \(String(cString: strerror(errno))).",
                              underlying: Errno(rawValue: errno))
        }
        let held = fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 0)
        guard held >= 0 else { throw Errno(rawValue: errno) }
        liveFiles.withLock { files in
            if let previous = files.updateValue(held, forKey: url.path) { close(previous) }
        }
    }

    /// Releases the lock of a file this process wrote: its row is saved, or it is gone.
    package func release(_ url: URL) {
        if let held = liveFiles.withLock({ $0.removeValue(forKey: url.path) }) { close(held) }
    }

    /// After `replacement` was renamed over `original`, the lock follows the file to its new name.
    func moveLive(from replacement: URL, to original: URL) {
        liveFiles.withLock { files in
            guard let held = files.removeValue(forKey: replacement.path) else { return }
            if let previous = files.updateValue(held, forKey: original.path) { close(previous) }
        }
    }

    /// The `<type>_<uuid>` stems of every `.partial`, `.importing` or `.finishing` file a live
    /// process holds: its files, and its thumbnail, are not to be touched by anyone else.
    package func liveStems() -> Set<String> {
        var stems: Set<String> = []
        for path in storedFiles() where path.hasPrefix(Self.recordingsFolder + "/") {
            let name = String(path.dropFirst(Self.recordingsFolder.count + 1))
            guard Self.isLiveName(name), isBeingWritten(url(of: path)) else { continue }
            stems.insert(Self.stem(of: name))
        }
        return stems
    }

    /// Whether clip `id` was given up (``abandon(_:)``) while it was being written.
    package func isAbandoned(_ id: UUID) -> Bool {
        abandoned.withLock { $0.contains(id) }
    }

    /// Gives up, for good, every file this process is still writing for clip `id` and has not
    /// saved, with its thumbnail and waveform, unless the clip is saved already: for an import stopped by
    /// Ctrl-C, which then leaves nothing behind. Work still running for it creates and saves
    /// nothing more (``save(_:as:)`` and ``create(_:)`` throw `CancellationError`). Under the writers' lock, so a save under way
    /// completes first. Returns whether the clip was given up (false: its row is there). A
    /// database that cannot be read counts as no row.
    package func abandon(_ id: UUID) throws -> Bool {
        try exclusively {
            guard (try? repository.fetch(id: id)) == nil else { return false }
            abandoned.withLock { _ = $0.insert(id) }
            let stem = id.uuidString.lowercased()
            let paths = liveFiles.withLock { files in files.keys.filter { $0.contains(stem) } }
            for path in paths { try? remove(URL(fileURLWithPath: path)) }
            try? remove(url(of: Self.thumbnailPath(for: id)))
            for type in RecordingType.allCases { try? remove(url(of: Self.waveformPath(for: id, type: type))) }
            return true
        }
    }
}

/// The writers' lock of one library folder: an exclusive `flock` on `library.lock`, which the
/// kernel drops when its process dies.
///
/// `flock` also excludes other open files of the same process, so there is one lock per library
/// folder (by device and inode) in a process, re-entrant on its thread (a repair saving a
/// recovered clip takes it again) and exclusive between threads.
final class WritersLock: Sendable {
    private static let locks = Locked<[String: WritersLock]>([:])
    /// Held by the thread that holds the `flock`, as often as it took it.
    private let thread = NSRecursiveLock()
    private let state = Locked<(depth: Int, descriptor: Int32)>((0, -1))

    /// The lock of the folder open at `root`.
    static func of(_ root: FileDescriptor, at url: URL) -> WritersLock {
        var info = stat()
        let key = fstat(root.rawValue, &info) == 0 ? "\(info.st_dev):\(info.st_ino)" : url.path
        return locks.withLock { locks in
            if let lock = locks[key] { return lock }
            let lock = WritersLock()
            locks[key] = lock
            return lock
        }
    }

    /// Takes the lock, waiting for another process to release it. The lock file is created
    /// (0600) beneath `root` when missing; a read-only library's existing one is locked as it is.
    /// Throws `.cannotWrite` when neither works or `flock` fails. The corresponding C functions
    /// are `openat` and `flock` with `LOCK_EX`.
    func lock(beneath root: FileDescriptor, at url: URL) throws(CraveyError) {
        thread.lock()
        do {
            try state.withLock { (state) throws(CraveyError) in
                guard state.depth == 0 else { return state.depth += 1 }
                var descriptor = openat(root.rawValue, FileStorageManager.lockFile, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
                if descriptor < 0, [EROFS, EACCES, EPERM].contains(errno) {
                    descriptor = openat(root.rawValue, FileStorageManager.lockFile, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                }
                let file = url.appendingPathComponent(FileStorageManager.lockFile)
                guard descriptor >= 0 else {
                    throw FileStorageManager.writeError(errno, file, doing: "open the library's lock file")
                }
                while flock(descriptor, LOCK_EX) != 0 {
                    guard errno == EINTR else {
                        let error = FileStorageManager.writeError(errno, file, doing: "lock")
                        close(descriptor)
                        throw error
                    }
                }
                state = (1, descriptor)
            }
        } catch {
            thread.unlock()
            throw error
        }
    }

    /// Releases what ``lock(beneath:at:)`` took; the `flock` goes with the last release.
    func unlock() {
        state.withLock { state in
            state.depth -= 1
            if state.depth == 0 {
                close(state.descriptor)
                state.descriptor = -1
            }
        }
        thread.unlock()
    }
}
