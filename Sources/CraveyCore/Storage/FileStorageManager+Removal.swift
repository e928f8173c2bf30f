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
            try Self.moveFile(url, to: marked)
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
        try? Self.moveFile(marked, to: marked.deletingLastPathComponent().appendingPathComponent(String(name)))
    }

    /// Unlinks a file inside the library; never follows a link. ENOENT is success.
    package func remove(_ url: URL) throws(CraveyError) {
        if let fault = faults.removal { try fault(url) }
        do throws(Errno) {
            try Self.unlinkFile(url)
        } catch where error != .noSuchFileOrDirectory {
            throw Self.writeError(error.rawValue, url, doing: "delete")
        } catch {}
    }

    /// Whether a recording process is still writing `url`: it holds an exclusive `flock` on it
    /// for as long as it records, and the kernel drops the lock when that process dies.
    public func isBeingRecorded(_ url: URL) -> Bool {
        guard let descriptor = try? FileDescriptor.open(FilePath(url.path), .readOnly, options: [.noFollow, .closeOnExec]) else {
            return false
        }
        defer { try? descriptor.close() }
        return flock(descriptor.rawValue, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// Every regular file under `Recordings/` (thumbnails included), as paths relative to the
    /// library. Links and folders are left out, so every path stays inside the library.
    public func storedFiles() -> [String] {
        storedFilesWithSizes().map(\.path)
    }

    /// ``storedFiles()`` with each file's size: one `readdir` and one `fstatat` per file, which
    /// matters when deleting thousands (`FileManager` and `URL` stat each path two more times).
    public func storedFilesWithSizes() -> [(path: String, size: Int64)] {
        var files: [(path: String, size: Int64)] = []
        for folder in [Self.recordingsFolder, Self.thumbnailsFolder] {
            guard let directory = opendir(libraryURL.path + "/" + folder) else { continue }
            defer { closedir(directory) }
            let descriptor = dirfd(directory)
            var entries: [(path: String, size: Int64)] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                var info = stat()
                guard name != ".", name != "..", fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0,
                      info.st_mode & S_IFMT == S_IFREG else { continue }
                entries.append(("\(folder)/\(name)", Int64(info.st_size)))
            }
            files += entries.sorted { $0.path < $1.path }
        }
        return files
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
