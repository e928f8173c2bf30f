import Foundation
import SystemPackage

/// A media file ``FileStorageManager`` created for writing and holds open: private (0600) from its
/// first byte, and never reached through a link.
///
/// Writers (the muxer) only write, seek and read back through it; its name, renames and removal
/// stay with ``FileStorageManager``. Closed by ``close()``, or quietly when dropped on a failure path.
package final class MediaFile {
    /// Where the file is, for messages and for ``FileStorageManager`` to rename or remove it;
    /// nothing reads or writes the file by this path.
    package let url: URL
    private let descriptor: FileDescriptor
    private var isOpen = true
    /// Called instead of `write(2)`, a fault a test injects (``StorageFaults/write``); nil in production.
    package var writeFault: StorageFaults.Write?

    init(url: URL, descriptor: FileDescriptor) {
        self.url = url
        self.descriptor = descriptor
    }

    deinit {
        if isOpen { try? descriptor.close() }
    }

    /// Writes every byte of `bytes` at the file's offset, looping while `write(2)` takes less
    /// than asked. Throws `Errno`. The corresponding C function is `write`.
    package func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var rest = bytes[...]
        while !rest.isEmpty {
            let buffer = UnsafeRawBufferPointer(rebasing: rest)
            let written = try writeFault?(descriptor, buffer) ?? descriptor.write(buffer)
            // A regular file takes at least one byte or fails; never spin on zero.
            guard written > 0 else { throw Errno.noSpace }
            rest = rest.dropFirst(written)
        }
    }

    /// Reads up to `buffer.count` bytes at `offset`, leaving the offset writes go to where it
    /// was; returns how many were read, 0 at the end of the file. Throws `Errno`.
    /// The corresponding C function is `pread`.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try descriptor.read(fromAbsoluteOffset: offset, into: buffer)
    }

    /// Flushes what was written to the disk. Throws `Errno`. The corresponding C function is `fsync`.
    package func sync() throws {
        guard fsync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
    }

    /// Moves the offset the next write goes to; returns it. Throws `Errno`.
    /// The corresponding C function is `lseek`.
    package func seek(to offset: Int64, from origin: FileDescriptor.SeekOrigin) throws -> Int64 {
        try descriptor.seek(offset: offset, from: origin)
    }

    /// The file's size in bytes; the offset stays where it was. Throws `Errno`.
    /// The corresponding C function is `fstat`.
    package func size() throws -> Int64 {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else { throw Errno(rawValue: errno) }
        return Int64(info.st_size)
    }

    /// Closes the descriptor. Throws `Errno`. The corresponding C function is `close`.
    package func close() throws {
        guard isOpen else { return }
        isOpen = false
        try descriptor.close()
    }
}

@available(*, unavailable)
extension MediaFile: Sendable {}

extension FileStorageManager {
    /// The suffix of the normal MP4 a fragmented file is rewritten into before it replaces it;
    /// `doctor` leaves such files alone while a recording finishes.
    public static let finishingSuffix = ".finishing"

    /// Creates the `.partial` file a recording (or an import) of this type and id is written to.
    /// Throws `Errno` (`.fileExists` when something, a link included, is already there).
    package func createPartial(id: UUID, type: RecordingType) throws -> MediaFile {
        try create(partialURL(for: id, type: type))
    }

    /// Creates `url`, a place in `Recordings/` or `Thumbnails/`, for writing (and reading back): a new file (never an
    /// existing one, never through a link at its place or in its folders) with mode 0600 from its
    /// first byte, whatever the umask lets through. Throws `Errno`.
    /// The corresponding C function is `openat` with `O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC`.
    ///
    /// A `.partial` or `.finishing` file is created under the library lock and locked at once,
    /// until its row is saved or it is removed: no other process ever sees it unowned.
    package func create(_ url: URL) throws -> MediaFile {
        let (folder, name) = try located(url)
        let directory = try folderDescriptor(folder)
        defer { try? directory.close() }
        guard Self.isLiveName(name) else { return MediaFile(url: url, descriptor: try Self.create(name, in: directory)) }
        return try exclusively {
            let descriptor = try Self.create(name, in: directory)
            holdLive(url, descriptor.rawValue)
            return MediaFile(url: url, descriptor: descriptor)
        }
    }

    /// Creates `name` beneath `folder`, 0600, exclusively and without following a link, open for
    /// reading and writing (MP4's `+faststart` reads what it wrote back). Throws `Errno`.
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

    /// The name a rewritten version of `url` is written under until it replaces `url`.
    package static func finishingURL(for url: URL) -> URL {
        URL(fileURLWithPath: url.path + finishingSuffix, isDirectory: false)
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

    /// The folder and name of a place inside the library, or EINVAL for any other place.
    private func located(_ url: URL) throws(Errno) -> (folder: Folder, name: String) {
        do throws(CraveyError) {
            return try locate(url)
        } catch {
            throw .invalidArgument
        }
    }

    /// ``openFolder(_:)``, its failure as the `Errno` underneath (ELOOP for a link).
    package func folderDescriptor(_ folder: Folder) throws(Errno) -> FileDescriptor {
        do throws(CraveyError) {
            return try openFolder(folder)
        } catch {
            if let code = error.underlying as? Errno { throw code }
            throw error.kind == .notFound ? .noSuchFileOrDirectory : .ioError
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
}
