import Foundation
import SystemPackage
internal import CFFmpeg

/// An owned muxer (`AVFormatContext` opened for writing) that writes a file it is given.
///
/// It never creates, renames or removes a file, and FFmpeg never opens one by its name:
/// ``FileStorageManager`` creates the ``MediaFile`` (0600 from its first byte, never through a
/// link, open for reading and writing) and keeps its name; the muxer writes through an
/// ``IOContext`` whose callbacks write (every byte) and seek that file's descriptor. MP4's
/// `+faststart` reads the file back in `av_write_trailer` (`ff_format_shift_data` asks the
/// context's `io_open` for the output's url, for reading): ours answers with a read-only
/// ``IOContext`` over the same ``MediaFile``, reading at its own offsets (`pread`), so the
/// second pass works on the descriptor too, even when the file's name is gone.
///
/// Its owner ends it with ``close()`` (trailer written) or ``abandon()`` (given up) on every path;
/// dropping it open is a programming error, caught by an assertion in debug builds. A muxer
/// that fails leaves the file to its owner, who removes it (``FileStorageManager/create(_:filling:)``).
final class Muxer {
    private let context: UnsafeMutablePointer<AVFormatContext>
    private let file: MediaFile
    /// Where the muxer writes; nil once closed or abandoned.
    private var io: IOContext?
    /// The contexts FFmpeg opened through `io_open` (`+faststart`'s read-back) and has not closed.
    private var readBacks: [IOContext] = []
    private var isOpen: Bool { io != nil }

    /// Creates the muxer for `file`. Throws ``FFmpegError`` when FFmpeg refuses the format or
    /// runs out of memory. The corresponding C functions are `avformat_alloc_output_context2`
    /// and `avio_alloc_context`.
    init(writingTo file: MediaFile, format: String) throws(FFmpegError) {
        FFmpegLog.configure
        var context: UnsafeMutablePointer<AVFormatContext>?
        // The url is for messages, and for io_open to recognise the read-back it asks for.
        try check(avformat_alloc_output_context2(&context, nil, format, file.url.path), "avformat_alloc_output_context2")
        self.context = context!
        self.file = file
        io = try IOContext(writing: file)  // on failure deinit frees the format context
        self.context.pointee.pb = io!.pointer
        self.context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO  // ours to free, not avformat's
        self.context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        self.context.pointee.io_open = { format, pb, url, flags, _ in
            guard let opaque = format?.pointee.opaque, let pb, let url else { return cravey_averror(EINVAL) }
            return Unmanaged<Muxer>.fromOpaque(opaque).takeUnretainedValue().openReadBack(pb, url: url, flags: flags)
        }
        // ff_format_io_close calls io_close2 while io_close is FFmpeg's default, as here.
        self.context.pointee.io_close2 = { format, pb in
            guard let opaque = format?.pointee.opaque else { return cravey_averror(EINVAL) }
            return Unmanaged<Muxer>.fromOpaque(opaque).takeUnretainedValue().closeReadBack(pb)
        }
    }

    deinit {
        assert(!isOpen, "the muxer of \(file.url.path) was dropped without close() or abandon()")
        avformat_free_context(context)
    }

    /// Answers FFmpeg's `io_open` with a read-only context over the file, or EPERM.
    ///
    /// Only the output's own url opened for reading (`+faststart`'s second pass) is answered;
    /// anything else is refused, since the muxer opens no file by a name.
    private func openReadBack(_ pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>,
                              url: UnsafePointer<CChar>, flags: Int32) -> Int32 {
        guard flags & AVIO_FLAG_WRITE == 0, strcmp(url, context.pointee.url) == 0 else { return cravey_averror(EPERM) }
        do {
            let readBack = try IOContext(reading: file)
            readBacks.append(readBack)
            pb.pointee = readBack.pointer
            return 0
        } catch {
            return error.code
        }
    }

    /// Answers FFmpeg's `io_close2`: frees a context ``openReadBack(_:url:flags:)`` made.
    ///
    /// Returns the first error its reads met: `ff_format_shift_data` stops at a failed read as at
    /// the end of the file and returns what the close returns, so this is what fails the trailer
    /// instead of leaving a file shifted only in part.
    private func closeReadBack(_ pb: UnsafeMutablePointer<AVIOContext>?) -> Int32 {
        guard let index = readBacks.firstIndex(where: { $0.pointer == pb }) else { return cravey_averror(EINVAL) }
        return readBacks.remove(at: index).error
    }

    /// Whether the container wants codec headers out of band (MP4 does).
    var wantsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// Flushes the file after every packet, so what was muxed is on disk if the process dies.
    func flushEveryPacket() {
        context.pointee.flush_packets = 1
        context.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS
    }

    /// Adds a stream described by `parameters` (an encoder's, ``Encoder/parameters()``, or an
    /// input stream's, ``Demuxer/parameters(ofStream:)``), timed in their time base; returns its
    /// index. The corresponding C functions are `avformat_new_stream` and `avcodec_parameters_copy`.
    func addStream(_ parameters: CodecParameters) throws(FFmpegError) -> Int32 {
        guard let stream = avformat_new_stream(context, nil) else { throw FFmpegError.outOfMemory }
        try check(avcodec_parameters_copy(stream.pointee.codecpar, parameters.pointer), "avcodec_parameters_copy")
        stream.pointee.time_base = parameters.timeBase
        return stream.pointee.index
    }

    /// Adds a stream that copies a stream of an input file packet for packet, its side data
    /// included, as `filter` gives them when its packets go through one; returns its index.
    func addStream(copying index: Int32, of input: Demuxer, through filter: BitstreamFilter? = nil) throws(FFmpegError) -> Int32 {
        let parameters: CodecParameters
        if let filter { parameters = try filter.outputParameters() } else { parameters = try input.parameters(ofStream: index) }
        let target = try addStream(parameters)
        // The input container's tag for the codec may mean nothing in this one: the muxer picks.
        context.pointee.streams[Int(target)]!.pointee.codecpar.pointee.codec_tag = 0
        try copySideData(ofStream: index, of: input, to: target)
        return target
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

    /// Writes nothing about where the file comes from, for a copy given to someone else: no
    /// `encoder` tag naming libavformat and no creation time (FFmpeg's bit-exact mode), and
    /// `tags` (a `title`) as its only metadata. Before ``writeHeader(options:)``.
    func writeOnly(tags: [String: String]) {
        context.pointee.flags |= AVFMT_FLAG_BITEXACT
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) { av_dict_set(&context.pointee.metadata, key, value, 0) }
    }

    /// Gives the file chapters, each from its start to its end in milliseconds, with its title
    /// (MP4's chapter track and Nero `chpl`, MP3's ID3v2 `CHAP` frames, Ogg's `CHAPTER` comments;
    /// a muxer without chapters, WAV's, writes none). Before ``writeHeader(options:)``; the
    /// context frees them. The corresponding C functions are `av_calloc`, `av_mallocz` and
    /// `av_dict_set`.
    func addChapters(_ chapters: [(start: Int64, end: Int64, title: String)]) throws(FFmpegError) {
        guard !chapters.isEmpty else { return }
        precondition(context.pointee.chapters == nil, "the muxer of \(file.url.path) was given chapters twice")
        guard let list = av_calloc(chapters.count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride) else {
            throw FFmpegError.outOfMemory
        }
        let pointers = list.assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self)
        context.pointee.chapters = pointers
        for (index, chapter) in chapters.enumerated() {
            // Counted as each is in place: avformat_free_context frees those it counts.
            guard let made = av_mallocz(MemoryLayout<AVChapter>.stride)?.assumingMemoryBound(to: AVChapter.self) else {
                throw FFmpegError.outOfMemory
            }
            made.pointee.id = Int64(index + 1)
            made.pointee.time_base = AVRational(num: 1, den: 1000)
            made.pointee.start = chapter.start
            made.pointee.end = chapter.end
            av_dict_set(&made.pointee.metadata, "title", chapter.title, 0)
            pointers[index] = made
            context.pointee.nb_chapters = UInt32(index + 1)
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
        guard let io else { return }
        let trailer = av_write_trailer(context)
        avio_flush(io.pointer)
        let written = io.error
        closeIO()
        try check(trailer, "av_write_trailer")
        try check(written, "avio_flush")
    }

    /// Gives the file up without a trailer, on a path that will not ``close()``: writes what is
    /// buffered (a fragmented MP4 is playable as it is) and leaves the file to its owner, who
    /// keeps or removes it. The corresponding C function is `avio_flush`.
    func abandon() {
        guard let io else { return }
        avio_flush(io.pointer)
        closeIO()
    }

    /// Lets the I/O context go (which frees it) and takes it off the format context.
    private func closeIO() {
        context.pointee.pb = nil
        io = nil
    }
}

@available(*, unavailable)
extension Muxer: Sendable {}
