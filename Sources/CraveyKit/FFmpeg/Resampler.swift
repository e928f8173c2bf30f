internal import CFFmpeg

/// The shape of uncompressed audio: sample format, rate and channel count.
struct AudioFormat {
    var sampleFormat: AVSampleFormat
    var sampleRate: Int32
    var channels: Int32

    /// Interleaved signed 16-bit samples, as PulseAudio captures them.
    static func signed16(sampleRate: Int, channels: Int) -> AudioFormat {
        AudioFormat(sampleFormat: AV_SAMPLE_FMT_S16, sampleRate: Int32(sampleRate), channels: Int32(channels))
    }

    /// Planar 32-bit float samples, as FFmpeg's native `aac` encoder wants them.
    static func floatPlanar(sampleRate: Int, channels: Int) -> AudioFormat {
        AudioFormat(sampleFormat: AV_SAMPLE_FMT_FLTP, sampleRate: Int32(sampleRate), channels: Int32(channels))
    }

    /// Interleaved 32-bit float samples, as the loudness meter reads them and the playback stream
    /// takes them.
    static func floatInterleaved(sampleRate: Int, channels: Int) -> AudioFormat {
        AudioFormat(sampleFormat: AV_SAMPLE_FMT_FLT, sampleRate: Int32(sampleRate), channels: Int32(channels))
    }

    var layout: AVChannelLayout {
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, channels)
        return layout
    }
}

/// An owned libswresample context converting between sample formats, rates and layouts.
final class Resampler {
    private var context: OpaquePointer?
    let input: AudioFormat
    let output: AudioFormat

    /// Builds a resampler between two formats, each in its channel count's usual layout.
    convenience init(from input: AudioFormat, to output: AudioFormat) throws(FFmpegError) {
        try self.init(from: input, layout: input.layout, to: output)
    }

    /// Builds a resampler for frames coming out of a decoder, whatever their layout. A `timed`
    /// one keeps their time as `aresample=async=1` does (see ``startNext(at:)``), for a stream
    /// whose timestamps must be trusted over its sample count (import); others just convert.
    convenience init(decoding decoder: Decoder, to output: AudioFormat, timed: Bool = false) throws(FFmpegError) {
        var layout = decoder.channelLayout
        if layout.order == AV_CHANNEL_ORDER_UNSPEC {
            // Some formats (WAV among them) only say how many channels: assume the usual layout.
            av_channel_layout_default(&layout, max(layout.nb_channels, 1))
        }
        try self.init(from: decoder.audioFormat, layout: layout, to: output, timed: timed)
    }

    /// The corresponding C functions are `swr_alloc_set_opts2`, `av_opt_set` and `swr_init`.
    private init(from input: AudioFormat, layout: AVChannelLayout, to output: AudioFormat,
                 timed: Bool = false) throws(FFmpegError) {
        self.input = input
        self.output = output
        var inLayout = layout
        var outLayout = output.layout
        try check(swr_alloc_set_opts2(&context, &outLayout, output.sampleFormat, output.sampleRate,
                                      &inLayout, input.sampleFormat, input.sampleRate, 0, nil),
                  "swr_alloc_set_opts2")
        if timed {
            try check(av_opt_set(UnsafeMutableRawPointer(context), "async", "1", 0), "av_opt_set")
        }
        try check(swr_init(context), "swr_init")
    }

    deinit { swr_free(&context) }

    /// An upper bound of the samples the next conversion of `count` input samples produces.
    /// The corresponding C function is `swr_get_out_samples`.
    func outputCapacity(forInput count: Int) -> Int {
        max(Int(swr_get_out_samples(context, Int32(count))), 0)
    }

    /// Says when the next input samples start, in seconds (the first call sets the start): with
    /// `async` on, samples that would overlap what was converted before are dropped, and a gap is
    /// filled with silence, once they are more than 0.1 s off (libswresample's `min_hard_comp`).
    /// The corresponding C function is `swr_next_pts`.
    func startNext(at seconds: Double) {
        let unitsPerSecond = Double(input.sampleRate) * Double(output.sampleRate)
        _ = swr_next_pts(context, Int64((seconds * unitsPerSecond).rounded()))
    }

    /// Converts `count` samples from `planes` (nil drains what is buffered) into `out` planes able to
    /// hold `capacity` samples; returns how many were written. The corresponding C function is `swr_convert`.
    func convert(_ planes: UnsafePointer<UnsafePointer<UInt8>?>?, count: Int,
                 into out: UnsafePointer<UnsafeMutablePointer<UInt8>?>, capacity: Int) throws(FFmpegError) -> Int {
        let written = swr_convert(context, UnsafeMutablePointer(mutating: out), Int32(capacity),
                                  planes.map { UnsafeMutablePointer(mutating: $0) }, Int32(count))
        return Int(try check(written, "swr_convert"))
    }
}

@available(*, unavailable)
extension Resampler: Sendable {}
