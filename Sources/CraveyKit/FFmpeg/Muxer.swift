import Foundation
import SystemPackage
internal import CFFmpeg

/// An owned muxer (`AVFormatContext` opened for writing) that writes a file it is given.
///
/// It never creates, renames or removes a file: ``FileStorageManager`` creates the ``MediaFile``
/// (0600 from its first byte, never through a link) and keeps its name; the muxer writes through
/// a custom `AVIOContext` whose callbacks write and seek that file's descriptor, each write looping
/// until every byte is taken. FFmpeg never opens the file for writing by its name (`avio_open`
/// would create it itself, following links, with the umask's mode). The context's `url` still
/// names the file: MP4's `+faststart` re-opens it by that name to read it back in
/// `av_write_trailer` (movenc's `shift_data`), while writing stays on the descriptor.
///
/// Its owner ends it with ``close()`` (trailer written) or ``abandon()`` (given up) on every path;
/// dropping it open is a programming error, caught by an assertion in debug builds. A muxer
/// that fails leaves the file to its owner, who removes it (``FileStorageManager/create(_:filling:)``).
final class Muxer {
    private let context: UnsafeMutablePointer<AVFormatContext>
    private let file: MediaFile
    private var isOpen = false

    /// FFmpeg's own buffer size for files (`IO_BUFFER_SIZE`).
    private static let bufferSize: Int32 = 32_768

    /// Creates the muxer for `file`. Throws ``FFmpegError`` when FFmpeg refuses the format or
    /// runs out of memory. The corresponding C functions are `avformat_alloc_output_context2`
    /// and `avio_alloc_context`.
    init(writingTo file: MediaFile, format: String) throws(FFmpegError) {
        FFmpegLog.configure
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&context, nil, format, file.url.path), "avformat_alloc_output_context2")
        self.context = context!
        self.file = file
        guard let buffer = av_malloc(Int(Self.bufferSize)) else { throw FFmpegError.outOfMemory }
        let io = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), Self.bufferSize, 1, Unmanaged.passUnretained(file).toOpaque(), nil,
            { opaque, bytes, count in
                // Every byte: a short write loops.
                Int32(Muxer.onFile(opaque) { file in
                    try file.writeAll(UnsafeRawBufferPointer(start: bytes, count: Int(count)))
                    return Int64(count)
                })
            },
            { opaque, offset, whence in
                // The file's size for AVSEEK_SIZE; lseek refuses a `whence` it does not know (EINVAL).
                Muxer.onFile(opaque) { file in
                    try whence & AVSEEK_SIZE != 0 ? file.size()
                        : file.seek(to: offset, from: FileDescriptor.SeekOrigin(rawValue: whence & ~AVSEEK_FORCE))
                }
            })
        guard let io else {
            av_free(buffer)
            throw FFmpegError.outOfMemory
        }
        self.context.pointee.pb = io
        self.context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO  // ours to free, not avformat's
        isOpen = true
    }

    deinit {
        assert(!isOpen, "the muxer of \(file.url.path) was dropped without close() or abandon()")
        if isOpen { freeIO() }
        avformat_free_context(context)
    }

    /// Runs an I/O callback's work on the file behind `opaque`: its result, or `AVERROR(errno)`.
    private static func onFile(_ opaque: UnsafeMutableRawPointer?, _ body: (MediaFile) throws -> Int64) -> Int64 {
        do {
            return try body(Unmanaged<MediaFile>.fromOpaque(opaque!).takeUnretainedValue())
        } catch {
            return Int64(cravey_averror((error as? Errno)?.rawValue ?? EIO))
        }
    }

    /// Frees the I/O context and its buffer (FFmpeg may have replaced the one it was given).
    private func freeIO() {
        av_freep(&context.pointee.pb.pointee.buffer)
        avio_context_free(&context.pointee.pb)
    }

    /// Whether the container wants codec headers out of band (MP4 does).
    var wantsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// Flushes the file after every packet, so what was muxed is on disk if the process dies.
    func flushEveryPacket() {
        context.pointee.flush_packets = 1
        context.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS
    }

    /// Adds a stream carrying what an encoder produces; returns its index.
    /// The corresponding C functions are `avformat_new_stream` and `avcodec_parameters_from_context`.
    func addStream(for encoder: Encoder) throws(FFmpegError) -> Int32 {
        guard let stream = avformat_new_stream(context, nil) else { throw FFmpegError.outOfMemory }
        try check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context),
                  "avcodec_parameters_from_context")
        stream.pointee.time_base = encoder.timeBase
        return stream.pointee.index
    }

    /// Adds a stream that copies a stream of an input file packet for packet; returns its index.
    /// The corresponding C function is `avcodec_parameters_copy`.
    func addStream(copying index: Int32, of input: Demuxer) throws(FFmpegError) -> Int32 {
        guard let stream = avformat_new_stream(context, nil) else { throw FFmpegError.outOfMemory }
        try input.withParameters(ofStream: index) { (parameters) throws(FFmpegError) in
            try check(avcodec_parameters_copy(stream.pointee.codecpar, parameters), "avcodec_parameters_copy")
        }
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = input.timeBase(ofStream: index)
        try copySideData(ofStream: index, of: input, to: stream.pointee.index)
        return stream.pointee.index
    }

    /// Copies a stream's side data (the display matrix that says how to rotate it, for example)
    /// to one of ours. The corresponding C function is `av_stream_new_side_data`.
    func copySideData(ofStream index: Int32, of input: Demuxer, to target: Int32) throws(FFmpegError) {
        let stream = context.pointee.streams[Int(target)]!
        for (type, bytes) in input.sideData(ofStream: index) {
            guard let destination = av_stream_new_side_data(stream, type, bytes.count) else { throw FFmpegError.outOfMemory }
            destination.update(from: bytes, count: bytes.count)
        }
    }

    /// Writes the container header with muxer options such as `movflags`.
    /// The corresponding C function is `avformat_write_header`.
    func writeHeader(options: [String: String] = [:]) throws(FFmpegError) {
        var dictionary = OptionDictionary(options)
        defer { dictionary.free() }
        try check(avformat_write_header(context, &dictionary.pointer), "avformat_write_header")
    }

    /// Writes a packet whose timestamps are in `timeBase`, rescaled to the stream's.
    /// The corresponding C function is `av_interleaved_write_frame`.
    func write(_ packet: Packet, timeBase: AVRational) throws(FFmpegError) {
        // The stream's own time base: the muxer may have changed it while writing the header.
        let stream = context.pointee.streams[Int(packet.streamIndex)]!
        av_packet_rescale_ts(packet.pointer, timeBase, stream.pointee.time_base)
        try check(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame")
    }

    /// Writes the trailer and everything still buffered. The file stays open: its owner closes it.
    /// The corresponding C functions are `av_write_trailer` and `avio_flush`.
    func close() throws(FFmpegError) {
        guard isOpen else { return }
        isOpen = false
        let trailer = av_write_trailer(context)
        avio_flush(context.pointee.pb)
        let written = context.pointee.pb.pointee.error
        freeIO()
        try check(trailer, "av_write_trailer")
        try check(written, "avio_flush")
    }

    /// Gives the file up without a trailer, on a path that will not ``close()``: writes what is
    /// buffered (a fragmented MP4 is playable as it is) and leaves the file to its owner, who
    /// keeps or removes it. The corresponding C function is `avio_flush`.
    func abandon() {
        guard isOpen else { return }
        isOpen = false
        avio_flush(context.pointee.pb)
        freeIO()
    }
}

@available(*, unavailable)
extension Muxer: Sendable {}
