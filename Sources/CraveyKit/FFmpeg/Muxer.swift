import Foundation
internal import CFFmpeg

/// An owned muxer (`AVFormatContext` opened for writing a file).
final class Muxer {
    private let context: UnsafeMutablePointer<AVFormatContext>
    private var isOpen = false

    /// Creates the muxer and opens the file for writing, private to its owner (mode 0600: clips
    /// are personal, and `avio_open` alone would follow the umask).
    /// The corresponding C functions are `avformat_alloc_output_context2` and `avio_open`.
    init(url: URL, format: String) throws(FFmpegError) {
        FFmpegLog.configure
        let created = open(url.path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        guard created >= 0 else { throw FFmpegError(code: -errno, operation: "open") }
        fchmod(created, 0o600)
        Glibc.close(created)
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&context, nil, format, url.path), "avformat_alloc_output_context2")
        self.context = context!
        try check(avio_open(&self.context.pointee.pb, url.path, AVIO_FLAG_WRITE), "avio_open")
        isOpen = true
    }

    deinit {
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
        try check(avcodec_parameters_copy(stream.pointee.codecpar, input.parameters(ofStream: index)),
                  "avcodec_parameters_copy")
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
}

@available(*, unavailable)
extension Muxer: Sendable {}
