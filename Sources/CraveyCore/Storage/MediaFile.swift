import Foundation
import SystemPackage

/// A file cravey created for writing and holds open: private (0600) from its first byte, and
/// never reached through a link.
///
/// Writers (the muxer) only write, seek and read back through it; its name, renames and removal
/// stay with its owner (``LibraryStore`` for a clip's file). Closed by ``close()``, or quietly
/// when dropped on a failure path.
package final class MediaFile {
    /// Where the file is, for messages; nothing reads or writes the file by this path.
    package let url: URL
    /// Its name in the library, for a file of the library.
    package let file: StoredFile?
    private let descriptor: FileDescriptor
    private var isOpen = true
    /// Called instead of `write(2)`, a fault a test injects (``StorageFaults/write``); nil in production.
    private let writeFault: StorageFaults.Write?

    init(url: URL, file: StoredFile? = nil, descriptor: FileDescriptor, writeFault: StorageFaults.Write? = nil) {
        self.url = url
        self.file = file
        self.descriptor = descriptor
        self.writeFault = writeFault
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

    /// ``writeAll(_:)`` of `data`.
    package func write(_ data: some ContiguousBytes) throws {
        try data.withUnsafeBytes { try writeAll($0) }
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

    /// Starts writing what was written to the disk, without waiting for it, so that a later
    /// ``sync()`` finds less to wait for (many files written one after the other go to the disk
    /// together). Best effort: nothing is reported. The corresponding C function is
    /// `sync_file_range` with `SYNC_FILE_RANGE_WRITE`.
    package func startSyncing() {
        _ = Self.syncFileRange?(descriptor.rawValue, 0, 0, 2)
    }

    /// The C library's `sync_file_range`, which Swift's Glibc module leaves out, looked up by name.
    private static let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
    }()

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
