import Foundation
import SystemPackage

/// A media file ``FileStorageManager`` created for writing and holds open: private (0600) from its
/// first byte, and never reached through a link.
///
/// Writers (the muxer) only write and seek through it; its name, renames and removal stay with
/// ``FileStorageManager``. Closed by ``close()``, or quietly when dropped on a failure path.
package final class MediaFile {
    /// Where the file is. FFmpeg's `+faststart` re-opens it by this path to read it back.
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
