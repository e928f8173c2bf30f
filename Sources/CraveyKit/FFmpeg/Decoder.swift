internal import CFFmpeg

/// An owned decoder context (`AVCodecContext` opened for decoding one stream of an ``Demuxer``).
final class Decoder {
    private let context: UnsafeMutablePointer<AVCodecContext>
    /// The index of the stream this decoder reads in its input file.
    let streamIndex: Int32
    /// How many packets ``decode(_:into:_:)`` skipped because the decoder refused them as damaged.
    private(set) var refusedPackets = 0

    /// Opens the decoder for a stream; `slicedOnThreads` decodes the slices of a picture (VP9's
    /// tiles) on as many threads as FFmpeg sees fit for the machine, but never several pictures
    /// at once: frame threading keeps a copy of the decoder's state per thread. The corresponding C functions are `avcodec_find_decoder`,
    /// `avcodec_parameters_to_context` and `avcodec_open2`.
    ///
    /// `structureOnly` makes no picture: the decoder reads each packet's structure (H.264's NAL
    /// units and their headers) and refuses a packet where it is broken, but skips the pictures'
    /// data (`skip_frame` set to `AVDISCARD_ALL`), for a check of a whole file at a fraction of
    /// a decoding's cost.
    init(stream index: Int32, of input: Demuxer, slicedOnThreads: Bool = false, structureOnly: Bool = false) throws(FFmpegError) {
        let parameters = try input.parameters(ofStream: index)
        guard let codec = avcodec_find_decoder(parameters.codecID) else {
            throw FFmpegError(code: FFmpegError.decoderNotFound.code, operation: "avcodec_find_decoder")
        }
        guard let context = avcodec_alloc_context3(codec) else { throw FFmpegError.outOfMemory }
        self.context = context
        self.streamIndex = index
        try check(avcodec_parameters_to_context(context, parameters.pointer), "avcodec_parameters_to_context")
        context.pointee.pkt_timebase = parameters.timeBase
        if slicedOnThreads {
            context.pointee.thread_count = 0
            context.pointee.thread_type = FF_THREAD_SLICE
        }
        if structureOnly { context.pointee.skip_frame = AVDISCARD_ALL }
        try check(avcodec_open2(context, codec, nil), "avcodec_open2")
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
    }

    var channelCount: Int32 { context.pointee.ch_layout.nb_channels }
    var channelLayout: AVChannelLayout { context.pointee.ch_layout }

    /// The shape of the audio this decoder produces.
    var audioFormat: AudioFormat {
        AudioFormat(sampleFormat: AVSampleFormat(context.pointee.sample_fmt.rawValue),
                    sampleRate: context.pointee.sample_rate, channels: channelCount)
    }

    /// When a decoded frame is shown, in seconds from the stream's start; nil when it carries no time.
    func seconds(of frame: Frame) -> Double? {
        let pts = frame.bestEffortTimestamp
        return pts == noTimestamp ? nil : Double(pts) * av_q2d(context.pointee.pkt_timebase)
    }

    /// Hands a packet to the decoder; `nil` starts draining. The corresponding C function is `avcodec_send_packet`.
    func send(_ packet: Packet?) throws(FFmpegError) -> CodecStep {
        try codecStep(avcodec_send_packet(context, packet?.pointer), "avcodec_send_packet")
    }

    /// Takes the next decoded frame out. The corresponding C function is `avcodec_receive_frame`.
    func receive(into frame: Frame) throws(FFmpegError) -> CodecStep {
        try codecStep(avcodec_receive_frame(context, frame.pointer), "avcodec_receive_frame")
    }

    /// Decodes a packet (nil: drains the decoder) and hands every frame that comes out to `body`,
    /// in `frame`, until `body` says `.stop`. A packet the decoder rejects as damaged is skipped,
    /// as players do; running out of memory is no damage and is thrown.
    func decode(_ packet: Packet?, into frame: Frame,
                _ body: (Frame) throws(FFmpegError) -> WalkStep) throws(FFmpegError) -> WalkStep {
        func drain() throws(FFmpegError) -> WalkStep {
            while try receive(into: frame) == .ready {
                if try body(frame) == .stop { return .stop }
            }
            return .next
        }
        guard let packet else {
            _ = try send(nil)
            return try drain()
        }
        var sent = try unlessOutOfMemory({ () throws(FFmpegError) in try send(packet) })
        if sent == .needsMore {
            // The decoder is full: take its frames out, then it accepts the packet.
            if try drain() == .stop { return .stop }
            sent = try unlessOutOfMemory { () throws(FFmpegError) in try send(packet) }
        }
        if sent == nil { refusedPackets += 1 }
        return try drain()
    }

    /// Forgets buffered data after a seek. The corresponding C function is `avcodec_flush_buffers`.
    func flush() { avcodec_flush_buffers(context) }
}

@available(*, unavailable)
extension Decoder: Sendable {}
