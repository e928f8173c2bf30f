internal import CFFmpeg

/// An owned encoder context (`AVCodecContext` opened for encoding).
///
/// The context stays inside: a muxer's stream gets a copy of its parameters (``parameters()``).
final class Encoder {
    private let context: UnsafeMutablePointer<AVCodecContext>

    /// Opens the encoder named `name` (`aac`, `mjpeg`, `libx264`...) on a context that `configure`
    /// sets up, with codec options such as `preset` or `crf`. The corresponding C functions are
    /// `avcodec_find_encoder_by_name`, `avcodec_alloc_context3` and `avcodec_open2`.
    init(codec name: String, globalHeader: Bool, options: [String: String] = [:],
         configure: (UnsafeMutablePointer<AVCodecContext>) -> Void) throws(FFmpegError) {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw FFmpegError(code: FFmpegError.encoderNotFound.code, operation: "avcodec_find_encoder_by_name(\(name))")
        }
        guard let context = avcodec_alloc_context3(codec) else { throw FFmpegError.outOfMemory }
        self.context = context
        configure(context)
        if globalHeader { context.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
        var dictionary = OptionDictionary(options)
        defer { dictionary.free() }
        try check(avcodec_open2(context, codec, &dictionary.pointer), "avcodec_open2")
    }

    /// Opens an audio encoder as `settings` describe it, timed in samples (time base 1/rate).
    convenience init(_ settings: AudioEncoding, globalHeader: Bool) throws(FFmpegError) {
        try self.init(codec: settings.codec, globalHeader: globalHeader) { context in
            context.pointee.sample_fmt = switch settings.samples {
            case .floatPlanar: AV_SAMPLE_FMT_FLTP
            case .codecsFirst: context.pointee.codec.pointee.sample_fmts?.pointee ?? AV_SAMPLE_FMT_S16
            }
            context.pointee.sample_rate = Int32(settings.sampleRate)
            context.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
            context.pointee.bit_rate = Int64(settings.bitRate)
            if settings.bitExact { context.pointee.flags |= Int32(AV_CODEC_FLAG_BITEXACT) }
            av_channel_layout_default(&context.pointee.ch_layout, Int32(settings.channels))
        }
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
    }

    /// Samples per channel each frame must carry (1024 for AAC); the last frame may be shorter.
    var frameSize: Int { Int(context.pointee.frame_size) }
    /// The sample format it encodes, by FFmpeg's name ("fltp"); nil for a video encoder.
    var sampleFormatName: String? { av_get_sample_fmt_name(context.pointee.sample_fmt).map { String(cString: $0) } }
    var timeBase: AVRational { context.pointee.time_base }
    var width: Int32 { context.pointee.width }
    var height: Int32 { context.pointee.height }
    /// Samples of encoder delay in front of the audio (1024 for AAC).
    var primingSamples: Int64 { Int64(context.pointee.initial_padding) }
    /// One video frame at the encoder's frame rate, in its time base (at least one tick); 0 for audio.
    var frameDuration: Int64 {
        let rate = context.pointee.framerate
        return context.pointee.codec_type == AVMEDIA_TYPE_VIDEO && rate.num > 0 && rate.den > 0
            ? max(av_rescale_q(1, av_inv_q(rate), timeBase), 1) : 0
    }

    /// A copy of what this encoder produces (codec, format, extradata) and its time base, for a
    /// muxer's stream. The corresponding C function is `avcodec_parameters_from_context`.
    func parameters() throws(FFmpegError) -> CodecParameters {
        try CodecParameters(timeBase: timeBase) { (parameters) throws(FFmpegError) in
            try check(avcodec_parameters_from_context(parameters, context), "avcodec_parameters_from_context")
        }
    }

    /// Hands a frame to the encoder; `nil` starts draining. The corresponding C function is `avcodec_send_frame`.
    func send(_ frame: Frame?) throws(FFmpegError) -> CodecStep {
        try codecStep(avcodec_send_frame(context, frame?.pointer), "avcodec_send_frame")
    }

    /// Takes the next encoded packet out. The corresponding C function is `avcodec_receive_packet`.
    func receive(into packet: Packet) throws(FFmpegError) -> CodecStep {
        try codecStep(avcodec_receive_packet(context, packet.pointer), "avcodec_receive_packet")
    }

    /// Encodes a frame (nil: drains the encoder) and writes every packet that comes out to
    /// stream `stream` of `muxer`, reusing `packet`. A video packet without a duration (libx264
    /// leaves it 0) gets one frame's time, or the MP4's last frame would show for no time.
    func encode(_ frame: Frame?, into muxer: Muxer, stream: Int32, using packet: Packet) throws(FFmpegError) {
        let frameDuration = frameDuration
        func writePackets() throws(FFmpegError) {
            while try receive(into: packet) == .ready {
                if packet.pointer.pointee.duration <= 0 { packet.pointer.pointee.duration = frameDuration }
                packet.streamIndex = stream
                try muxer.write(packet, timeBase: timeBase)
            }
        }
        while try send(frame) == .needsMore { try writePackets() }
        try writePackets()
    }
}

@available(*, unavailable)
extension Encoder: Sendable {}
