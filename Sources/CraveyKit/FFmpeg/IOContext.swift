import Foundation
import SystemPackage
internal import CFFmpeg

/// An owned `AVIOContext` over a file this process already holds open.
///
/// FFmpeg reads, writes and seeks the file through its callbacks, so it opens nothing by a path.
/// Reading, it keeps its own position and reads at it (`pread`), so it shares no offset with any
/// other user of the descriptor: MP4's `+faststart` reads back the file its muxer is writing.
/// Writing (a ``MediaFile``), it writes every byte at the descriptor's offset and seeks that.
/// Either way `AVSEEK_SIZE` is the file's size (`fstat`), and an error becomes `AVERROR(errno)`.
final class IOContext {
    private enum Access {
        case reading(any PositionalReading)
        case writing(MediaFile)
    }

    /// The C context, for a format context's `pb`; FFmpeg may replace its buffer, never the context.
    private(set) var pointer: UnsafeMutablePointer<AVIOContext>!
    private let access: Access
    /// Where the next read starts; reading only.
    private var position: Int64 = 0

    /// FFmpeg's own buffer size for files (`IO_BUFFER_SIZE`).
    private static let bufferSize: Int32 = 32_768

    /// Creates a read-only, seekable context over `file`, starting at its first byte. Throws
    /// ``FFmpegError/outOfMemory``. The corresponding C function is `avio_alloc_context`.
    convenience init(reading file: any PositionalReading) throws(FFmpegError) {
        try self.init(.reading(file))
    }

    /// Creates a write-only, seekable context over `file`, writing at its descriptor's offset.
    /// Throws ``FFmpegError/outOfMemory``. The corresponding C function is `avio_alloc_context`.
    convenience init(writing file: MediaFile) throws(FFmpegError) {
        try self.init(.writing(file))
    }

    private init(_ access: Access) throws(FFmpegError) {
        self.access = access
        guard let buffer = av_malloc(Int(Self.bufferSize)) else { throw .outOfMemory }
        let isWriting = if case .writing = access { true } else { false }
        pointer = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), Self.bufferSize, isWriting ? 1 : 0,
            Unmanaged.passUnretained(self).toOpaque(),
            isWriting ? nil : Self.readCallback, isWriting ? Self.writeCallback : nil, Self.seekCallback)
        guard pointer != nil else {
            av_free(buffer)
            throw .outOfMemory
        }
    }

    /// Frees the context and its buffer (FFmpeg may have replaced the one it was given).
    /// The corresponding C function is `avio_context_free`.
    deinit {
        guard pointer != nil else { return }
        av_freep(&pointer.pointee.buffer)
        avio_context_free(&pointer)
    }

    /// The first error a read or write met (`AVERROR(errno)`), or 0.
    ///
    /// FFmpeg records it here even where it goes on: to its caller, a read that fails mid-way
    /// looks like the end of the file.
    var error: Int32 { pointer.pointee.error }

    // MARK: The callbacks: one copy, for every context

    private static let readCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = {
        opaque, bytes, count in
        Int32(run(opaque) { io in try io.read(into: UnsafeMutableRawBufferPointer(start: bytes, count: Int(count))) })
    }

    private static let writeCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = {
        opaque, bytes, count in
        Int32(run(opaque) { io in try io.write(UnsafeRawBufferPointer(start: bytes, count: Int(count))) })
    }

    private static let seekCallback: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = {
        opaque, offset, whence in
        run(opaque) { io in try io.seek(to: offset, whence: whence) }
    }

    /// Runs a callback's work on the context behind `opaque`.
    ///
    /// Returns its result, or `AVERROR(errno)` for the `Errno` it threw (EIO for anything else).
    private static func run(_ opaque: UnsafeMutableRawPointer?, _ body: (IOContext) throws -> Int64) -> Int64 {
        do {
            return try body(Unmanaged<IOContext>.fromOpaque(opaque!).takeUnretainedValue())
        } catch {
            return Int64(cravey_averror((error as? Errno)?.rawValue ?? EIO))
        }
    }

    /// Reads at the context's position and moves it on; `AVERROR_EOF` at the end of the file.
    private func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int64 {
        guard case .reading(let file) = access else { throw Errno.badFileDescriptor }
        let count = try file.read(into: buffer, at: position)
        guard count > 0 else { return Int64(FFmpegError.endOfFile.code) }
        position += Int64(count)
        return Int64(count)
    }

    /// Writes every byte: a short write loops.
    private func write(_ bytes: UnsafeRawBufferPointer) throws -> Int64 {
        guard case .writing(let file) = access else { throw Errno.badFileDescriptor }
        try file.writeAll(bytes)
        return Int64(bytes.count)
    }

    /// Moves the position and returns it; for `AVSEEK_SIZE`, returns the file's size instead.
    ///
    /// `whence` is `SEEK_SET`, `SEEK_CUR` or `SEEK_END` (`AVSEEK_FORCE` changes nothing here);
    /// another, or a position before the start, is EINVAL.
    private func seek(to offset: Int64, whence: Int32) throws -> Int64 {
        switch access {
        case .writing(let file):
            if whence & AVSEEK_SIZE != 0 { return try file.size() }
            // lseek refuses a `whence` it does not know.
            return try file.seek(to: offset, from: FileDescriptor.SeekOrigin(rawValue: whence & ~AVSEEK_FORCE))
        case .reading(let file):
            if whence & AVSEEK_SIZE != 0 { return try file.size() }
            let base: Int64 = switch whence & ~AVSEEK_FORCE {
            case SEEK_SET: 0
            case SEEK_CUR: position
            case SEEK_END: try file.size()
            default: throw Errno.invalidArgument
            }
            let (target, overflow) = base.addingReportingOverflow(offset)
            guard !overflow, target >= 0 else { throw Errno.invalidArgument }
            position = target
            return target
        }
    }
}

@available(*, unavailable)
extension IOContext: Sendable {}

/// A file read at an offset given with each read (`pread`).
///
/// Each reader keeps its own position and moves no one else's.
protocol PositionalReading: AnyObject {
    /// Reads up to `buffer.count` bytes at `offset`; returns how many, 0 at the end of the file.
    /// Throws `Errno`.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
    /// The file's size in bytes. Throws `Errno`.
    func size() throws -> Int64
}

extension MediaFile: PositionalReading {}

/// A descriptor of its own for reading a file, closed when dropped.
///
/// A close-on-exec duplicate of the one it is given: its owner can outlive whoever opened the
/// file, and, reading with `pread`, moves no one's offset.
final class ReadingDescriptor: PositionalReading {
    private let descriptor: FileDescriptor

    /// Duplicates `descriptor`. Throws `Errno`. The corresponding C function is `fcntl` with
    /// `F_DUPFD_CLOEXEC`.
    init(duplicating descriptor: FileDescriptor) throws(Errno) {
        let duplicate = fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else { throw Errno(rawValue: errno) }
        self.descriptor = FileDescriptor(rawValue: duplicate)
    }

    /// Closes the duplicate, which was only read: nothing is lost if the close fails.
    deinit { try? descriptor.close() }

    /// The corresponding C function is `pread`.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try descriptor.read(fromAbsoluteOffset: offset, into: buffer)
    }

    /// The corresponding C function is `fstat`.
    func size() throws -> Int64 {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else { throw Errno(rawValue: errno) }
        return Int64(info.st_size)
    }
}

@available(*, unavailable)
extension ReadingDescriptor: Sendable {}
