import Foundation
import SystemPackage

extension FileStorageManager {
    /// The prefix a file gets while its deletion is under way; `doctor` finishes or undoes a
    /// deletion a crash interrupted.
    public static let deletingPrefix = ".deleting-"

    /// Deletes a recording's media file. A file already gone is not an error.
    public func deleteRecording(at relativePath: String) throws(CraveyError) {
        try remove(absoluteURL(for: relativePath))
    }

    /// Deletes a thumbnail. A file already gone is not an error.
    public func deleteThumbnail(at relativePath: String) throws(CraveyError) {
        try remove(absoluteURL(for: relativePath))
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

    /// Unlinks a file inside the library; never follows a link. ENOENT is success.
    package func remove(_ url: URL) throws(CraveyError) {
        defer { release(url) }
        if let fault = faults.removal { try fault(url) }
        do throws(Errno) {
            try unlinkFile(url)
        } catch where error != .noSuchFileOrDirectory {
            throw Self.writeError(error.rawValue, url, doing: "delete")
        } catch {}
    }

    /// Whether a recording process is still writing `url`: it holds an exclusive `flock` on it
    /// for as long as it records, and the kernel drops the lock when that process dies.
    public func isBeingRecorded(_ url: URL) -> Bool {
        guard let (folder, name) = try? locate(url), let directory = try? folderDescriptor(folder) else { return false }
        defer { try? directory.close() }
        let descriptor = openat(directory.rawValue, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// Every regular file under `Recordings/` (thumbnails included), as paths relative to the
    /// library. Links and folders are left out, so every path stays inside the library; so are
    /// names that are not UTF-8 (``unreadableNames()``).
    public func storedFiles() -> [String] {
        storedFilesWithSizes().map(\.path)
    }

    /// ``storedFiles()`` with each file's size: one `readdir` and one `fstatat` per file, which
    /// matters when deleting thousands (`FileManager` and `URL` stat each path two more times).
    public func storedFilesWithSizes() -> [(path: String, size: Int64)] {
        var files: [(path: String, size: Int64)] = []
        for folder in [Folder.recordings, .thumbnails] {
            let prefix = folder == .recordings ? Self.recordingsFolder : Self.thumbnailsFolder
            files += entries(in: folder).compactMap { entry in
                String(validating: entry.name, as: UTF8.self).map { ("\(prefix)/\($0)", entry.size) }
            }.sorted { $0.path < $1.path }
        }
        return files
    }

    /// Regular files under `Recordings/` whose names are not valid UTF-8: no row can name them,
    /// so `doctor` renames them and `delete-all` removes them by their bytes.
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

    /// Renames a file of `folder` from raw bytes to `newName`, beneath the folder's descriptor.
    package func rename(raw name: [UInt8], in folder: Folder, to newName: String) throws(CraveyError) {
        do throws(Errno) {
            let descriptor = try folderDescriptor(folder)
            defer { try? descriptor.close() }
            let code = (name + [0]).withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { renameat(descriptor.rawValue, $0.baseAddress!, descriptor.rawValue, newName) }
            }
            if code != 0 { throw Errno(rawValue: errno) }
        } catch {
            throw Self.writeError(error.rawValue, url(of: folder), doing: "rename a file in")
        }
    }

    /// Removes a file of `folder` by its raw name, beneath the folder's descriptor. ENOENT is success.
    package func remove(raw name: [UInt8], in folder: Folder) throws(CraveyError) {
        do throws(Errno) {
            let descriptor = try folderDescriptor(folder)
            defer { try? descriptor.close() }
            let code = (name + [0]).withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { unlinkat(descriptor.rawValue, $0.baseAddress!, 0) }
            }
            if code != 0 && errno != ENOENT { throw Errno(rawValue: errno) }
        } catch {
            throw Self.writeError(error.rawValue, url(of: folder), doing: "delete a file in")
        }
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
    /// Called instead of `write` by ``FileStorageManager/writeAtomically(_:to:doing:faults:)``:
    /// returning fewer bytes than it was given makes a short write.
    package var write: Write?
    package typealias Write = @Sendable (FileDescriptor, UnsafeRawBufferPointer) throws(Errno) -> Int

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
    /// Called before a rewritten file replaces its original (given the original); throwing makes
    /// the rename fail.
    package var replacement: (@Sendable (URL) throws -> Void)?
}
