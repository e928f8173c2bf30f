import Foundation
import SystemPackage
internal import CFFmpeg

/// An owned muxer (`AVFormatContext` opened for writing a file).
///
/// Its owner ends it with ``close()`` (trailer written) or ``abandon()`` (given up) on every path;
/// dropping it open is a programming error, caught by an assertion in debug builds.
final class Muxer {
    private let context: UnsafeMutablePointer<AVFormatContext>
    private let path: String
    private var isOpen = false
    private var wroteHeader = false

    /// Creates the muxer and opens the file for writing, private to its owner (mode 0600: clips
    /// are personal, and `avio_open` alone would follow the umask). Throws ``FFmpegError`` when
    /// FFmpeg refuses, `Errno` when the file cannot be created; nothing is left behind either way.
    /// The corresponding C functions are `avformat_alloc_output_context2` and `avio_open`.
    init(url: URL, format: String) throws {
        FFmpegLog.configure
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&context, nil, format, url.path), "avformat_alloc_output_context2")
        self.context = context!
        path = url.path
        let created = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        guard created >= 0 else { throw Errno(rawValue: errno) }
        fchmod(created, 0o600)
        Glibc.close(created)
        do {
            try check(avio_open(&self.context.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open")
        } catch {
            unlink(path)
            throw error
        }
        isOpen = true
    }

    deinit {
        assert(!isOpen, "the muxer of \(path) was dropped without close() or abandon()")
        if isOpen { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
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
    func addStream(copying index: Int32, of input: InputFile) throws(FFmpegError) -> Int32 {
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
    func copySideData(ofStream index: Int32, of input: InputFile, to target: Int32) throws(FFmpegError) {
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
        wroteHeader = true
    }

    /// Writes a packet whose timestamps are in `timeBase`, rescaled to the stream's.
    /// The corresponding C function is `av_interleaved_write_frame`.
    func write(_ packet: Packet, timeBase: AVRational) throws(FFmpegError) {
        // The stream's own time base: the muxer may have changed it while writing the header.
        let stream = context.pointee.streams[Int(packet.streamIndex)]!
        av_packet_rescale_ts(packet.pointer, timeBase, stream.pointee.time_base)
        try check(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame")
    }

    /// Writes the trailer and closes the file. The corresponding C functions are
    /// `av_write_trailer` and `avio_closep`.
    func close() throws(FFmpegError) {
        guard isOpen else { return }
        let trailer = av_write_trailer(context)
        isOpen = false
        let closed = avio_closep(&context.pointee.pb)
        try check(trailer, "av_write_trailer")
        try check(closed, "avio_closep")
    }

    /// Gives the file up without a trailer, on a path that will not ``close()``: closes it, and
    /// removes it when no header was written yet, since it then holds nothing a reader can use.
    /// What was muxed after a header stays (a fragmented MP4 is playable as it is).
    /// The corresponding C function is `avio_closep`.
    func abandon() {
        guard isOpen else { return }
        isOpen = false
        avio_closep(&context.pointee.pb)
        if !wroteHeader { unlink(path) }
    }
}

@available(*, unavailable)
extension Muxer: Sendable {}
