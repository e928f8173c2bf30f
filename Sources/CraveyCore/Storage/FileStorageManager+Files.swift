import Foundation
import SystemPackage

extension FileStorageManager {
    /// Creates `url`, a place in `Recordings/` or `Thumbnails/`, for writing: a new file (never an
    /// existing one, never through a link at its place or in its folders) with mode 0600 from its
    /// first byte, whatever the umask lets through. Throws `Errno`, or a ``CraveyError`` when the
    /// writers' lock cannot be taken.
    ///
    /// A `.partial`, `.importing` or `.finishing` file is created under the writers' lock and
    /// locked at once, until its row is saved or it is removed: no other process ever sees it
    /// unowned. The corresponding C function is `openat` with `O_CREAT | O_EXCL | O_NOFOLLOW`.
    package func create(_ url: URL) throws -> MediaFile {
        let (folder, name) = try located(url)
        let directory = try folderDescriptor(folder)
        defer { try? directory.close() }
        guard Self.isLiveName(name) else { return MediaFile(url: url, descriptor: try Self.create(name, in: directory)) }
        return try exclusively {
            if abandoned.withLock({ set in set.contains { name.contains($0.uuidString.lowercased()) } }) {
                throw CancellationError()
            }
            let descriptor = try Self.create(name, in: directory)
            do {
                try holdLive(url, descriptor)
            } catch {
                try? descriptor.close()
                unlinkat(directory.rawValue, name, 0)
                throw error
            }
            return MediaFile(url: url, descriptor: descriptor)
        }
    }

    /// Creates `name` beneath `folder`, 0600, exclusively and without following a link, open
    /// for reading and writing (the MP4 muxer reads back what it wrote). Throws `Errno`.
    package static func create(_ name: String, in folder: FileDescriptor) throws(Errno) -> FileDescriptor {
        let descriptor = openat(folder.rawValue, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        return FileDescriptor(rawValue: descriptor)
    }

    /// Creates `url`, has `body` fill it and closes it; when anything throws, removes it: a file
    /// that could not be filled is never left behind. A file already at `url` is left alone.
    package func create(_ url: URL, filling body: (MediaFile) throws -> Void) throws {
        let file = try create(url)
        do {
            try body(file)
            try file.close()
        } catch {
            discard(file)
            throw error
        }
    }

    /// Gives up a file this library created and could not fill: closes and removes it, quietly,
    /// on a path that is already throwing.
    package func discard(_ file: MediaFile) {
        try? file.close()
        try? unlinkFile(file.url)
        release(file.url)
    }

    /// Puts the finished `replacement` in the place of `original` in one rename: a reader sees
    /// one or the other, never a mix. On failure `replacement` is removed and `original` stays
    /// as it was. Throws `Errno`. The corresponding C function is `renameat`.
    package func replace(_ original: URL, with replacement: URL) throws {
        do {
            if let fault = faults.replacement { try fault(original) }
            try moveFile(replacement, to: original)
            moveLive(from: replacement, to: original)
        } catch {
            try? unlinkFile(replacement)
            release(replacement)
            throw error
        }
    }

    /// Renames within the library, beneath the folders' descriptors; throws `Errno`.
    /// The corresponding C function is `renameat`.
    func moveFile(_ source: URL, to destination: URL) throws(Errno) {
        let from = try located(source), to = try located(destination)
        let sourceFolder = try folderDescriptor(from.folder)
        defer { try? sourceFolder.close() }
        let destinationFolder = try folderDescriptor(to.folder)
        defer { try? destinationFolder.close() }
        if renameat(sourceFolder.rawValue, from.name, destinationFolder.rawValue, to.name) != 0 {
            throw Errno(rawValue: errno)
        }
    }

    /// Removes a name inside the library, beneath its folder's descriptor; never follows a link.
    /// Throws `Errno`, ENOENT included. The corresponding C function is `unlinkat`.
    func unlinkFile(_ url: URL) throws(Errno) {
        let (folder, name) = try located(url)
        let descriptor = try folderDescriptor(folder)
        defer { try? descriptor.close() }
        if unlinkat(descriptor.rawValue, name, 0) != 0 { throw Errno(rawValue: errno) }
    }

    /// Unlinks a file inside the library and lets go of its lock, if this process held one;
    /// never follows a link. A file already gone is no error.
    package func remove(_ url: URL) throws(CraveyError) {
        defer { release(url) }
        if let fault = faults.removal { try fault(url) }
        do throws(Errno) {
            try unlinkFile(url)
        } catch where error != .noSuchFileOrDirectory {
            throw Self.writeError(error.rawValue, url, doing: "delete")
        } catch {}
    }

    /// Renames a stored file to its `.deleting-` name in the same folder: the first, reversible
    /// step of deleting it. Returns nil when the file is already gone.
    package func markForDeletion(_ relativePath: String) throws(CraveyError) -> URL? {
        let url = try absoluteURL(for: relativePath)
        let marked = url.deletingLastPathComponent().appendingPathComponent(Self.deletingPrefix + url.lastPathComponent)
        do throws(Errno) {
            try moveFile(url, to: marked)
        } catch where error == .noSuchFileOrDirectory {
            return nil
        } catch {
            throw Self.writeError(error.rawValue, url, doing: "delete")
        }
        return marked
    }

    /// Undoes ``markForDeletion(_:)``.
    package func unmark(_ marked: URL) {
        let name = marked.lastPathComponent.dropFirst(Self.deletingPrefix.count)
        try? moveFile(marked, to: marked.deletingLastPathComponent().appendingPathComponent(String(name)))
    }

    /// Whether a process is still writing `url`: it holds an exclusive `flock` on it for as long
    /// as it writes, and the kernel drops the lock when that process dies.
    package func isBeingWritten(_ url: URL) -> Bool {
        guard let (folder, name) = try? locate(url), let directory = try? folderDescriptor(folder) else { return false }
        defer { try? directory.close() }
        let descriptor = openat(directory.rawValue, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    // MARK: - Durability

    /// Flushes a file of the library, its bytes and size, to the disk. Throws `Errno`.
    /// The corresponding C functions are `openat` and `fsync`.
    func syncFile(_ url: URL) throws(Errno) {
        let (folder, name) = try located(url)
        let directory = try folderDescriptor(folder)
        defer { try? directory.close() }
        let descriptor = openat(directory.rawValue, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw Errno(rawValue: errno) }
    }

    /// Flushes a folder's entries (what was created, renamed or removed in it) to the disk.
    /// Throws `Errno`. The corresponding C function is `fsync` on the folder's descriptor.
    func syncFolder(_ folder: Folder) throws(Errno) {
        let descriptor = try folderDescriptor(folder)
        defer { try? descriptor.close() }
        guard fsync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
    }

    // MARK: - Listing

    /// Every regular file under `Recordings/` (thumbnails included), as paths relative to the
    /// library. Links and folders are left out, so every path stays inside the library; so are
    /// names that are not UTF-8 (``unreadableNames()``).
    package func storedFiles() -> [String] {
        storedFilesWithSizes().map(\.path)
    }

    /// ``storedFiles()`` with each file's size: one `readdir` and one `fstatat` per file, which
    /// matters when deleting thousands (`FileManager` and `URL` stat each path two more times).
    package func storedFilesWithSizes() -> [(path: String, size: Int64)] {
        var files: [(path: String, size: Int64)] = []
        for folder in [Folder.recordings, .thumbnails] {
            let prefix = folder == .recordings ? Self.recordingsFolder : Self.thumbnailsFolder
            files += entries(in: folder).compactMap { entry in
                String(validating: entry.name, as: UTF8.self).map { ("\(prefix)/\($0)", entry.size) }
            }.sorted { $0.path < $1.path }
        }
        return files
    }

    /// Bytes used by every file under `Recordings/`, thumbnails included.
    package func totalStorageUsed() -> Int64 {
        storedFilesWithSizes().reduce(0) { $0 + $1.size }
    }

    /// Regular files under `Recordings/` whose names are not valid UTF-8: cravey gives no such
    /// name, so `doctor` reports them as not its own and `delete-all` leaves them.
    package func unreadableNames() -> [(folder: Folder, name: [UInt8], size: Int64)] {
        [Folder.recordings, .thumbnails].flatMap { folder in
            entries(in: folder).filter { String(validating: $0.name, as: UTF8.self) == nil }.map { (folder, $0.name, $0.size) }
        }
    }

    /// How a name that is not UTF-8 is shown: its invalid bytes as `\xNN`.
    package static func visibleName(_ name: [UInt8]) -> String {
        var shown = ""
        var rest = name[...]
        while !rest.isEmpty {
            // The longest valid prefix, then one byte escaped.
            var length = rest.count
            while length > 0, String(validating: rest.prefix(length), as: UTF8.self) == nil { length -= 1 }
            shown += String(decoding: rest.prefix(length), as: UTF8.self)
            rest = rest.dropFirst(length)
            if let byte = rest.first {
                shown += String(format: "\\x%02X", byte)
                rest = rest.dropFirst()
            }
        }
        return shown
    }

    /// The regular files of a folder with their raw names and sizes: one `readdir` and one
    /// `fstatat` (never following a link) per entry, beneath the folder's own descriptor.
    private func entries(in folder: Folder) -> [(name: [UInt8], size: Int64)] {
        guard let descriptor = try? folderDescriptor(folder), let directory = fdopendir(descriptor.rawValue) else { return [] }
        defer { closedir(directory) }
        let base = dirfd(directory)
        var entries: [(name: [UInt8], size: Int64)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            var info = stat()
            guard name != [0x2E], name != [0x2E, 0x2E],
                  (name + [0]).withUnsafeBufferPointer({ bytes in
                      bytes.withMemoryRebound(to: CChar.self) { fstatat(base, $0.baseAddress!, &info, AT_SYMLINK_NOFOLLOW) }
                  }) == 0,
                  info.st_mode & S_IFMT == S_IFREG else { continue }
            entries.append((name, Int64(info.st_size)))
        }
        return entries
    }
}

/// Faults injected by tests into file operations; empty in production.
package struct StorageFaults: Sendable {
    /// Called before every file removal; throwing makes the removal fail.
    package var removal: (@Sendable (URL) throws(CraveyError) -> Void)?
    /// Called instead of `write` by ``FileStorageManager/writeAtomically(_:to:doing:replacing:faults:)``:
    /// returning fewer bytes than it was given makes a short write.
    package var write: Write?
    package typealias Write = @Sendable (FileDescriptor, UnsafeRawBufferPointer) throws(Errno) -> Int
    /// Called before a rewritten file replaces its original (given the original); throwing makes
    /// the rename fail.
    package var replacement: (@Sendable (URL) throws -> Void)?

    package init(removal: (@Sendable (URL) throws(CraveyError) -> Void)? = nil, write: Write? = nil,
                 replacement: (@Sendable (URL) throws -> Void)? = nil) {
        self.removal = removal
        self.write = write
        self.replacement = replacement
    }

    /// A write that takes at most `count` bytes a call, as a kernel may: for tests that check
    /// writes loop.
    package static func writesTakingAtMost(_ count: Int) -> Write {
        { descriptor, bytes throws(Errno) in
            do {
                return try descriptor.write(UnsafeRawBufferPointer(rebasing: bytes.prefix(count)))
            } catch {
                throw error as? Errno ?? .ioError
            }
        }
    }
}
