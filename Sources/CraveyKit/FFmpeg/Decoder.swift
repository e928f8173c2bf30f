internal import CFFmpeg

/// An owned decoder context (`AVCodecContext` opened for decoding one stream of an ``InputFile``).
final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    /// The index of the stream this decoder reads in its input file.
    let streamIndex: Int32

    /// Opens the decoder for a stream. The corresponding C functions are
    /// `avcodec_find_decoder`, `avcodec_parameters_to_context` and `avcodec_open2`.
    init(stream index: Int32, of input: InputFile) throws(FFmpegError) {
        let parameters = input.parameters(ofStream: index)
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw FFmpegError(code: FFmpegError.decoderNotFound.code, operation: "avcodec_find_decoder")
        }
        guard let context = avcodec_alloc_context3(codec) else { throw FFmpegError.outOfMemory }
        self.context = context
        self.streamIndex = index
        try check(avcodec_parameters_to_context(context, parameters), "avcodec_parameters_to_context")
        context.pointee.pkt_timebase = input.timeBase(ofStream: index)
        try check(avcodec_open2(context, codec, nil), "avcodec_open2")
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
    }

    var sampleRate: Int32 { context.pointee.sample_rate }
    var channelCount: Int32 { context.pointee.ch_layout.nb_channels }

    /// Hands a packet to the decoder; `nil` starts draining. The corresponding C function is `avcodec_send_packet`.
    func send(_ packet: Packet?) throws(FFmpegError) -> CodecStep {
        try codecStep(avcodec_send_packet(context, packet?.pointer), "avcodec_send_packet")
    }

    /// Takes the next decoded frame out. The corresponding C function is `avcodec_receive_frame`.
    func receive(into frame: Frame) throws(FFmpegError) -> CodecStep {
        try codecStep(avcodec_receive_frame(context, frame.pointer), "avcodec_receive_frame")
    }

    /// Decodes a packet (nil: drains the decoder) and hands every frame that comes out to `body`,
    /// in `frame`. A packet the decoder rejects as damaged is skipped, as players do.
    func decode(_ packet: Packet?, into frame: Frame, _ body: (Frame) throws(FFmpegError) -> Void) throws(FFmpegError) {
        func drain() throws(FFmpegError) {
            while try receive(into: frame) == .ready { try body(frame) }
        }
        if let packet {
            if (try? send(packet)) == .needsMore {
                try drain()
                _ = try? send(packet)
            }
        } else {
            _ = try send(nil)
        }
        try drain()
    }

    /// Forgets buffered data after a seek. The corresponding C function is `avcodec_flush_buffers`.
    func flush() { avcodec_flush_buffers(context) }
}

@available(*, unavailable)
extension Decoder: Sendable {}
