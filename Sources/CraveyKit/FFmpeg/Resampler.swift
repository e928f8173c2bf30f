internal import CFFmpeg

/// The shape of uncompressed audio: sample format, rate and channel count.
struct AudioFormat {
    var sampleFormat: AVSampleFormat
    var sampleRate: Int32
    var channels: Int32

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

    /// The corresponding C functions are `swr_alloc_set_opts2` and `swr_init`.
    init(from input: AudioFormat, to output: AudioFormat) throws(FFmpegError) {
        self.input = input
        self.output = output
        var inLayout = input.layout
        var outLayout = output.layout
        try check(swr_alloc_set_opts2(&context, &outLayout, output.sampleFormat, output.sampleRate,
                                      &inLayout, input.sampleFormat, input.sampleRate, 0, nil),
                  "swr_alloc_set_opts2")
        try check(swr_init(context), "swr_init")
    }

    /// Builds a resampler for frames coming out of a decoder, whatever their layout.
    init(decoding decoder: Decoder, to output: AudioFormat) throws(FFmpegError) {
        self.input = AudioFormat(sampleFormat: AVSampleFormat(decoder.context.pointee.sample_fmt.rawValue),
                                 sampleRate: decoder.sampleRate, channels: decoder.channelCount)
        self.output = output
        var inLayout = decoder.context.pointee.ch_layout
        if inLayout.order == AV_CHANNEL_ORDER_UNSPEC {
            // Some formats (WAV among them) only say how many channels: assume the usual layout.
            inLayout = AudioFormat(sampleFormat: input.sampleFormat, sampleRate: input.sampleRate,
                                   channels: max(decoder.channelCount, 1)).layout
        }
        var outLayout = output.layout
        try check(swr_alloc_set_opts2(&context, &outLayout, output.sampleFormat, output.sampleRate,
                                      &inLayout, input.sampleFormat, input.sampleRate, 0, nil),
                  "swr_alloc_set_opts2")
        try check(swr_init(context), "swr_init")
    }

    deinit { swr_free(&context) }

    /// An upper bound of the samples the next conversion of `count` input samples produces.
    /// The corresponding C function is `swr_get_out_samples`.
    func outputCapacity(forInput count: Int) -> Int {
        max(Int(swr_get_out_samples(context, Int32(count))), 0)
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
