import Foundation
internal import CFFmpeg

/// An owned libavfilter graph taking audio through a chain of filters, in libavfilter's own
/// syntax (`highpass=f=80,afftdn=nf=-40`, `volume=3dB,aformat=sample_fmts=s16`): abuffer ->
/// filters -> abuffersink. The noise clean-up and the shared copy of a clip go through one.
///
/// Like ``FilterGraph`` (pictures), it loads libavfilter with `dlopen` the first time, so the
/// recorder never pays for its libraries.
final class AudioFilterGraph {
    private let library: LibAVFilter
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?

    /// Builds a graph for the sound `decoder` gives (its sample format, rate and channel layout),
    /// timed in samples (time base 1/rate), through `filters`.
    convenience init(decoding decoder: Decoder, filters: String) throws(FFmpegError) {
        try self.init(for: decoder.audioFormat, layout: decoder.channelLayout, filters: filters)
    }

    /// Builds a graph for audio in `format`, in the usual layout for its channels, timed in
    /// samples (time base 1/rate), through `filters`.
    convenience init(for format: AudioFormat, filters: String) throws(FFmpegError) {
        try self.init(for: format, layout: format.layout, filters: filters)
    }

    /// Builds a graph for audio in `format` with `layout`, timed in samples (time base 1/rate),
    /// through `filters`. The corresponding C functions are `avfilter_graph_alloc`,
    /// `avfilter_graph_parse_ptr` and `avfilter_graph_config`.
    private init(for format: AudioFormat, layout: AVChannelLayout, filters: String) throws(FFmpegError) {
        library = try LibAVFilter.shared.get()
        guard let graph = library.graphAlloc() else { throw FFmpegError.outOfMemory }
        self.graph = graph
        var layout = layout
        if layout.order == AV_CHANNEL_ORDER_UNSPEC { av_channel_layout_default(&layout, max(layout.nb_channels, 1)) }
        var described = [CChar](repeating: 0, count: 128)
        _ = av_channel_layout_describe(&layout, &described, described.count)
        let layoutName = String(decoding: described.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let formatName = av_get_sample_fmt_name(format.sampleFormat).map { String(cString: $0) } ?? "fltp"
        let buffer = "abuffer=time_base=1/\(format.sampleRate):sample_rate=\(format.sampleRate):sample_fmt=\(formatName)"
            + ":channel_layout=\(layoutName)"
        try check(library.graphParse(graph, "\(buffer),\(filters),abuffersink", nil, nil, nil), "avfilter_graph_parse_ptr")
        // The chain's ends, taken before avfilter_graph_config inserts conversions of its own.
        source = graph.pointee.filters[0]
        sink = graph.pointee.filters[Int(graph.pointee.nb_filters) - 1]
        try check(library.graphConfig(graph, nil), "avfilter_graph_config")
    }

    deinit { library.graphFree(&graph) }

    /// Hands samples to the graph (their buffers move into it, leaving `frame` empty); nil says
    /// no more follow, so the filters give out what they hold. The frame's `pts` counts samples.
    /// The corresponding C function is `av_buffersrc_add_frame`.
    func push(_ frame: Frame?) throws(FFmpegError) {
        try check(library.addFrame(source, frame?.pointer), "av_buffersrc_add_frame")
    }

    /// Takes the next filtered frame out: `.ready` (in `frame`), `.needsMore` (push more first),
    /// `.endOfStream` (everything is out). The corresponding C function is `av_buffersink_get_frame`.
    func pull(into frame: Frame) throws(FFmpegError) -> CodecStep {
        frame.unref()
        return try codecStep(library.getFrame(sink, frame.pointer), "av_buffersink_get_frame")
    }

    /// Takes every frame the graph has ready to `body`, reusing `frame`; true once the graph has
    /// given everything out (after ``push(_:)`` of nil).
    @discardableResult
    func drain(into frame: Frame, _ body: (Frame) throws(FFmpegError) -> Void) throws(FFmpegError) -> Bool {
        while true {
            switch try pull(into: frame) {
            case .ready: try body(frame)
            case .needsMore: return false
            case .endOfStream: return true
            }
        }
    }

    /// The samples a chain delays its output by, measured: an impulse taken through it (a chain
    /// whose filters run in their pass-through mode delays exactly as it does filtering, as
    /// `afftdn=om=i` does), found again in what comes out. Used to line the cleaned sound up
    /// with the original sample for sample. Measured at the rate and in the layout of the sound
    /// `decoder` gives.
    static func latency(of filters: String, decoding decoder: Decoder) throws(FFmpegError) -> Int {
        let (sampleRate, layout) = (decoder.audioFormat.sampleRate, decoder.channelLayout)
        let channels = Int(max(layout.nb_channels, 1))
        let floats = AudioFormat(sampleFormat: AV_SAMPLE_FMT_FLT, sampleRate: sampleRate, channels: Int32(channels))
        let graph = try AudioFilterGraph(for: floats, layout: layout, filters: filters + ",aformat=sample_fmts=flt")
        let length = Int(sampleRate)  // a second: longer than any window of these filters
        let input = try Frame()
        try input.allocateAudio(samples: length, format: AV_SAMPLE_FMT_FLT, sampleRate: sampleRate, layout: layout)
        let samples = UnsafeMutableRawPointer(input.mutableAudioPlanes[0]!).assumingMemoryBound(to: Float.self)
        samples.update(repeating: 0, count: length * channels)
        for channel in 0..<channels { samples[channel] = 0.5 }
        input.pts = 0
        try graph.push(input)
        try graph.push(nil)
        let frame = try Frame()
        var found: Int?
        var position = 0
        try graph.drain(into: frame) { frame in
            let count = frame.sampleCount
            let out = UnsafeRawPointer(frame.audioPlanes[0]!).assumingMemoryBound(to: Float.self)
            if found == nil, let index = (0..<count).first(where: { abs(out[$0 * channels]) > 0.25 }) { found = position + index }
            position += count
        }
        guard let found else { throw FFmpegError(code: FFmpegError.invalidData.code, operation: "latency of \(filters)") }
        return found
    }
}

@available(*, unavailable)
extension AudioFilterGraph: Sendable {}
