import Foundation

/// Descriptors holding the `flock` of every `.partial`, `.importing` and `.finishing` file this process is
/// writing, by path: kept from the file's creation until its row is in the library (or the file
/// is removed), whichever descriptor wrote it and however often it is renamed meanwhile.
private let liveFiles = Locked<[String: Int32]>([:])

extension FileStorageManager {
    /// The lock file in the library folder (``exclusively(_:)``).
    public static let lockFile = "library.lock"
    /// The journal of a `delete-all` under way: present from before its first row goes until its
    /// last file is gone, so whoever comes next finishes a deletion a crash interrupted.
    public static let deleteAllJournal = "delete-all.pending"

    /// Runs `body` holding the library's writer lock (`library.lock`, `flock` `LOCK_EX`), waiting
    /// for another process to finish its step first. Re-entrant on one thread.
    package func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        let lock = LibraryLock.of(libraryURL.path)
        lock.lock {
            guard let root = try? openFolder(.library) else { return -1 }
            defer { try? root.close() }
            let descriptor = openat(root.rawValue, Self.lockFile, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            // A read-only library: its lock file can still be locked if it is there.
            return descriptor >= 0 ? descriptor : openat(root.rawValue, Self.lockFile, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        }
        defer { lock.unlock() }
        return try body()
    }

    /// Whether `url` names a file still being written, which holds a lock while its writer lives.
    static func isLiveName(_ name: String) -> Bool {
        name.hasSuffix(partialSuffix) || name.hasSuffix(finishingSuffix) || name.hasSuffix(importingSuffix)
    }

    /// Locks a `.partial`, `.importing` or `.finishing` file just created (through `descriptor`) for as long as
    /// this process owns it. Called under ``exclusively(_:)``, so no other process ever sees it
    /// unlocked. The corresponding C functions are `flock` and `dup`.
    func holdLive(_ url: URL, _ descriptor: Int32) {
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return }
        let held = dup(descriptor)
        guard held >= 0 else { return }
        _ = fcntl(held, F_SETFD, FD_CLOEXEC)
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

    /// The `<type>_<uuid>` stems of every `.partial`, `.importing` or `.finishing` file a live process holds:
    /// its files, and its thumbnail, are not to be touched by anyone else.
    package func liveStems() -> Set<String> {
        var stems: Set<String> = []
        for path in storedFiles() where path.hasPrefix(Self.recordingsFolder + "/") {
            let name = String(path.dropFirst(Self.recordingsFolder.count + 1))
            guard Self.isLiveName(name), isBeingRecorded(url(of: path)) else { continue }
            stems.insert(Self.stem(of: name))
        }
        return stems
    }

    /// `video_<uuid>` for `video_<uuid>.mp4.partial` or `video_<uuid>.jpg`.
    package static func stem(of name: String) -> String {
        String(name.prefix { $0 != "." })
    }

    /// Whether a `delete-all` was interrupted: its journal is in the library folder.
    package var isDeletingAll: Bool {
        guard let root = try? openFolder(.library) else { return false }
        defer { try? root.close() }
        var info = stat()
        return fstatat(root.rawValue, Self.deleteAllJournal, &info, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// Writes the `delete-all` journal and flushes it, and its folder, to the disk.
    package func beginDeletingAll() throws(CraveyError) {
        let root = try openFolder(.library)
        defer { try? root.close() }
        let descriptor = openat(root.rawValue, Self.deleteAllJournal, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.writeError(errno, libraryURL.appendingPathComponent(Self.deleteAllJournal), doing: "start deleting with") }
        fsync(descriptor)
        close(descriptor)
        fsync(root.rawValue)
    }

    /// Removes the `delete-all` journal: the deletion is complete (or was given up and undone).
    package func endDeletingAll() {
        guard let root = try? openFolder(.library) else { return }
        defer { try? root.close() }
        unlinkat(root.rawValue, Self.deleteAllJournal, 0)
        fsync(root.rawValue)
    }
}

extension FileStorageManager {
    /// Gives up, for good, every file this process is still writing and has not saved, with its
    /// thumbnail: for an import stopped by Ctrl-C, which then leaves nothing behind. Under the
    /// library lock, so a save under way completes first; a file saved meanwhile was renamed
    /// away from its writing name and is left alone. Whether the clip was saved is the
    /// database's to say (`ImportRecordingUseCase.abandon(_:)`), not this list's: a save
    /// empties it.
    package func abandonLiveFiles() {
        exclusively {
            let paths = liveFiles.withLock { Array($0.keys) }
            for path in paths {
                let url = URL(fileURLWithPath: path)
                defer { release(url) }
                guard (try? unlinkFile(url)) != nil else { continue }
                try? unlinkFile(self.url(of: "\(Self.thumbnailsFolder)/\(Self.stem(of: url.lastPathComponent)).jpg"))
            }
        }
    }
}
