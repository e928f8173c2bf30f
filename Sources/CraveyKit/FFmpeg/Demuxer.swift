import Foundation
import SystemPackage
internal import CFFmpeg

/// An owned demuxer (`AVFormatContext` opened for reading a file or a capture device).
///
/// A file of the library is read through a descriptor opened beneath the library folder
/// (``init(reading:name:)``): FFmpeg reads it through an I/O context and never by a path. A
/// file from outside the library (the one a person imports) is opened by its path
/// (``init(url:)``), a capture device by its name (``init(opening:format:options:)``).
final class Demuxer {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    /// The I/O context a descriptor is read through; nil when FFmpeg opened the input itself.
    /// Freed after the format context (Swift releases it after `deinit` has run).
    private let io: IOContext?

    /// Opens a media file by its path and reads its stream information.
    ///
    /// For a file outside the library; FFmpeg opens the path itself.
    /// The corresponding C functions are `avformat_open_input` and `avformat_find_stream_info`.
    init(url: URL) throws(FFmpegError) {
        FFmpegLog.configure
        io = nil
        try check(avformat_open_input(&context, url.path, nil, nil), "avformat_open_input")
        try check(avformat_find_stream_info(context, nil), "avformat_find_stream_info")
    }

    /// Opens the media file open at `descriptor` and reads its stream information, never by a path.
    ///
    /// FFmpeg reads a duplicate of the descriptor, which the demuxer owns and closes (the caller
    /// keeps and closes its own), through a read-only ``IOContext`` that keeps its own position.
    /// `name` (a file name such as `audio_<UUID>.m4a`) is only for messages and for the format
    /// probe, which takes its extension as a hint. Anything else the file asks FFmpeg to open (a
    /// playlist's segments, an MP4's external references) is refused with EPERM.
    ///
    /// Throws ``FFmpegError``: `AVERROR(errno)` when the descriptor cannot be duplicated or read
    /// (EBADF for one not open for reading), FFmpeg's code when the file is not media it knows.
    /// The corresponding C functions are `avio_alloc_context`, `avformat_open_input` and
    /// `avformat_find_stream_info`.
    init(reading descriptor: FileDescriptor, name: String) throws(FFmpegError) {
        FFmpegLog.configure
        let file: ReadingDescriptor
        do {
            file = try ReadingDescriptor(duplicating: descriptor)
        } catch {
            throw FFmpegError(code: cravey_averror(error.rawValue), operation: "fcntl(F_DUPFD_CLOEXEC)")
        }
        let io = try IOContext(reading: file)
        self.io = io
        guard let context = avformat_alloc_context() else { throw FFmpegError.outOfMemory }
        context.pointee.pb = io.pointer
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO  // ours to free, not avformat's
        context.pointee.io_open = { _, _, _, _, _ in cravey_averror(EPERM) }
        self.context = context
        // On failure avformat_open_input frees the context and sets it to nil; the I/O context stays ours.
        try check(avformat_open_input(&self.context, name, nil, nil), "avformat_open_input")
        try check(avformat_find_stream_info(self.context, nil), "avformat_find_stream_info")
    }

    /// Opens `url` with the given input format and its options (a capture device:
    /// ``init(device:format:options:)``), without reading ahead for stream information.
    /// The corresponding C function is `avformat_open_input`.
    init(opening url: String, format: UnsafePointer<AVInputFormat>, options: inout OpaquePointer?) throws(FFmpegError) {
        FFmpegLog.configure
        io = nil
        try check(avformat_open_input(&context, url, format, &options), "avformat_open_input")
    }

    /// Closes the input; then Swift frees the I/O context, if any, which closes its descriptor.
    /// The corresponding C function is `avformat_close_input`.
    deinit { avformat_close_input(&context) }

    private var format: UnsafeMutablePointer<AVFormatContext> { context! }

    var streamCount: Int { Int(format.pointee.nb_streams) }

    private func stream(_ index: Int32) -> UnsafeMutablePointer<AVStream> {
        format.pointee.streams[Int(index)]!
    }

    /// A copy of a stream's codec parameters and time base, for a decoder or a muxer's stream.
    /// The corresponding C function is `avcodec_parameters_copy`.
    func parameters(ofStream index: Int32) throws(FFmpegError) -> CodecParameters {
        let stream = stream(index)
        return try CodecParameters(timeBase: stream.pointee.time_base) { (parameters) throws(FFmpegError) in
            try check(avcodec_parameters_copy(parameters, stream.pointee.codecpar), "avcodec_parameters_copy")
        }
    }

    func timeBase(ofStream index: Int32) -> AVRational { stream(index).pointee.time_base }

    /// The stream's average frame rate, as the demuxer guessed it. The corresponding C function is
    /// `av_guess_frame_rate`.
    func frameRate(ofStream index: Int32) -> AVRational {
        av_guess_frame_rate(format, stream(index), nil)
    }

    /// Reads only stream `index` from now on: the others' packets are skipped, most of them without
    /// being read (a player's decoder needs one stream). Sets `AVStream.discard` to `AVDISCARD_ALL`.
    func readOnly(stream index: Int) {
        for other in 0..<Int32(streamCount) where other != index { stream(other).pointee.discard = AVDISCARD_ALL }
    }

    /// The stream's pixel aspect ratio (width over height of one pixel), 1 when it does not say.
    func pixelAspect(ofStream index: Int32) -> Double {
        let ratio = stream(index).pointee.codecpar.pointee.sample_aspect_ratio
        return ratio.num > 0 && ratio.den > 0 ? av_q2d(ratio) : 1
    }

    /// The stream's frame rate as ``frameRate(ofStream:)`` guesses it, in frames a second; nil
    /// when there is no guess.
    func framesPerSecond(ofStream index: Int32) -> Double? {
        let rate = frameRate(ofStream: index)
        return rate.num > 0 && rate.den > 0 ? av_q2d(rate) : nil
    }

    /// The stream's side data (a display matrix, for example) as type and bytes.
    func sideData(ofStream index: Int32) -> [(type: AVPacketSideDataType, bytes: [UInt8])] {
        let stream = stream(index).pointee
        guard let entries = stream.side_data else { return [] }
        return (0..<Int(stream.nb_side_data)).map { entry in
            let data = entries[entry]
            return (data.type, Array(UnsafeBufferPointer(start: data.data, count: Int(data.size))))
        }
    }

    /// Where a cut-short file's media stops, in seconds: the earliest time at which the
    /// container's index places a sample beyond the end of the file. `nil` when every indexed
    /// sample is there, or the container keeps no index (an MP4 lists every sample in its `moov`).
    /// The corresponding C functions are `avformat_index_get_entry` and `avio_size`.
    func firstMissingSample() -> Double? {
        guard let io = format.pointee.pb else { return nil }
        let fileSize = avio_size(io)
        guard fileSize > 0 else { return nil }
        var earliest: Double?
        for index in 0..<Int32(streamCount) {
            let stream = stream(index)
            for position in 0..<avformat_index_get_entries_count(stream) {
                guard let entry = avformat_index_get_entry(stream, position)?.pointee,
                      entry.pos >= 0, entry.pos + Int64(entry.size) > fileSize else { continue }
                let time = entry.timestamp == noTimestamp ? 0 : max(Double(entry.timestamp) * av_q2d(stream.pointee.time_base), 0)
                earliest = min(earliest ?? time, time)
                break
            }
        }
        return earliest
    }

    /// A value snapshot of the container and its streams.
    var info: MediaInfo {
        let duration = format.pointee.duration
        return MediaInfo(
            formatName: String(cString: format.pointee.iformat.pointee.name),
            containerDuration: duration == noTimestamp || duration <= 0 ? nil : Double(duration) / Double(AV_TIME_BASE),
            streams: (0..<Int32(streamCount)).map(streamInfo))
    }

    private func streamInfo(_ index: Int32) -> StreamInfo {
        let stream = stream(index)
        let parameters = stream.pointee.codecpar.pointee
        let kind: StreamInfo.Kind = switch parameters.codec_type {
        case AVMEDIA_TYPE_AUDIO: .audio
        case AVMEDIA_TYPE_VIDEO: .video
        case AVMEDIA_TYPE_SUBTITLE: .subtitle
        case AVMEDIA_TYPE_DATA: .data
        default: .other
        }
        let duration = stream.pointee.duration
        return StreamInfo(
            index: Int(index),
            kind: kind,
            codecName: String(cString: avcodec_get_name(parameters.codec_id)),
            duration: duration == noTimestamp || duration <= 0 ? nil : Double(duration) * av_q2d(stream.pointee.time_base),
            sampleRate: kind == .audio ? Int(parameters.sample_rate) : nil,
            channels: kind == .audio ? Int(parameters.ch_layout.nb_channels) : nil,
            width: kind == .video ? Int(parameters.width) : nil,
            height: kind == .video ? Int(parameters.height) : nil,
            rotation: kind == .video ? rotation(of: stream) : 0,
            isAttachedPicture: stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0)
    }

    private func rotation(of stream: UnsafeMutablePointer<AVStream>) -> Int {
        guard let matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, nil) else { return 0 }
        let degrees = -av_display_rotation_get(UnsafeRawPointer(matrix).assumingMemoryBound(to: Int32.self))
        guard degrees.isFinite else { return 0 }
        let rounded = Int((degrees / 90).rounded()) * 90
        return ((rounded % 360) + 360) % 360
    }

    /// Reads the next packet; false at the end of the input. The corresponding C function is `av_read_frame`.
    func read(into packet: Packet) throws(FFmpegError) -> Bool {
        let code = av_read_frame(format, packet.pointer)
        if code == FFmpegError.endOfFile.code { return false }
        try check(code, "av_read_frame")
        return true
    }

    /// When a packet's media starts and ends, in seconds from its stream's start; nil when the
    /// packet carries no time.
    func timeSpan(of packet: Packet) -> (start: Double, end: Double)? {
        let pts = packet.pointer.pointee.pts
        guard pts != noTimestamp else { return nil }
        let scale = av_q2d(timeBase(ofStream: packet.streamIndex))
        return (Double(pts) * scale, Double(pts + max(packet.pointer.pointee.duration, 0)) * scale)
    }

    /// Seeks to a keyframe at or before `seconds`. The corresponding C function is `avformat_seek_file`.
    func seek(to seconds: Double) throws(FFmpegError) {
        let target = Int64(seconds * Double(AV_TIME_BASE))
        try check(avformat_seek_file(format, -1, Int64.min, target, target, 0), "avformat_seek_file")
    }
}

@available(*, unavailable)
extension Demuxer: Sendable {}

/// A scoped `AVDictionary` of options built from a Swift dictionary.
struct OptionDictionary {
    var pointer: OpaquePointer?

    init(_ options: [String: String]) {
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            av_dict_set(&pointer, key, value, 0)
        }
    }

    mutating func free() { av_dict_free(&pointer) }
}
