internal import CFFmpeg

/// An owned bitstream filter (`AVBSFContext`): rewrites a stream's packets without decoding
/// them, as `ffmpeg -bsf:v` does. ``withoutSEI(ofStream:of:)`` makes the one share needs.
final class BitstreamFilter {
    private var context: UnsafeMutablePointer<AVBSFContext>?

    /// A filter `name` with `options` (its private options, as `key=value` on ffmpeg's command
    /// line) for the packets of stream `index` of `input`. The corresponding C functions are
    /// `av_bsf_get_by_name`, `av_bsf_alloc`, `av_opt_set` and `av_bsf_init`.
    init(_ name: String, options: [String: String], forStream index: Int32, of input: Demuxer) throws(FFmpegError) {
        guard let filter = av_bsf_get_by_name(name) else { throw FFmpegError.filterNotFound }
        try check(av_bsf_alloc(filter, &context), "av_bsf_alloc")
        guard let context else { throw FFmpegError.outOfMemory }
        let parameters = try input.parameters(ofStream: index)
        try check(avcodec_parameters_copy(context.pointee.par_in, parameters.pointer), "avcodec_parameters_copy")
        context.pointee.time_base_in = parameters.timeBase
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            try check(av_opt_set(context.pointee.priv_data, key, value, 0), "av_opt_set")
        }
        try check(av_bsf_init(context), "av_bsf_init")
    }

    deinit { av_bsf_free(&context) }

    /// A filter that drops every SEI NAL unit (type 6) of an H.264 stream: the messages beside
    /// the pictures, among them the user data x264 writes into its first picture ("x264 - core
    /// 164 - H.264/MPEG-4 AVC codec - ... options: ..."), which names the encoder, its version and
    /// its settings. Nothing a picture needs is in one: every clip's video starts each group of
    /// pictures at an IDR picture, which needs no recovery point. Nil for a stream of any other codec.
    static func withoutSEI(ofStream index: Int32, of input: Demuxer) throws(FFmpegError) -> BitstreamFilter? {
        guard try input.parameters(ofStream: index).codecID == AV_CODEC_ID_H264 else { return nil }
        return try BitstreamFilter("filter_units", options: ["remove_types": "6"], forStream: index, of: input)
    }

    /// What comes out, described: the parameters a muxer's stream of the filtered packets takes
    /// (their extradata may be rewritten too, in another layout than the input's), and their
    /// time base. The corresponding C function is `avcodec_parameters_copy`.
    func outputParameters() throws(FFmpegError) -> CodecParameters {
        let context = context!
        return try CodecParameters(timeBase: context.pointee.time_base_out) { (copy) throws(FFmpegError) in
            try check(avcodec_parameters_copy(copy, context.pointee.par_out), "avcodec_parameters_copy")
        }
    }

    /// Sends `packet` through (nil: the end of the stream) and hands every packet that comes out
    /// to `body`, in `packet` itself, timed in ``outputParameters()``'s time base. The corresponding C functions are `av_bsf_send_packet` and
    /// `av_bsf_receive_packet`.
    func filter(_ packet: Packet?, _ body: (Packet) throws(FFmpegError) -> Void) throws(FFmpegError) {
        try check(av_bsf_send_packet(context, packet?.pointer), "av_bsf_send_packet")
        let out: Packet
        if let packet { out = packet } else { out = try Packet() }
        while try codecStep(av_bsf_receive_packet(context, out.pointer), "av_bsf_receive_packet") == .ready {
            try body(out)
            out.unref()
        }
    }
}

@available(*, unavailable)
extension BitstreamFilter: Sendable {}
