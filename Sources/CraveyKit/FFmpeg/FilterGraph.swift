import Foundation
internal import CFFmpeg

/// An owned libavfilter graph taking pictures through a chain of filters (`transpose`, `hflip`...):
/// buffer source -> filters -> buffer sink.
///
/// libavfilter pulls in dozens of shared libraries (rubberband, vidstab, zimg, vulkan...) that
/// the audio recorder must not pay for at start-up, so it is not linked: it is loaded with
/// `dlopen` the first time a graph is built, and its functions are looked up by name.
final class FilterGraph {
    private let library: LibAVFilter
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?

    /// Builds a graph for pictures shaped like `picture`, through `filters`: a chain in
    /// libavfilter's own syntax, such as `transpose=clock` or `hflip,vflip`. The corresponding
    /// C functions are `avfilter_graph_alloc`, `avfilter_graph_parse_ptr` and `avfilter_graph_config`.
    init(for picture: Frame, filters: String) throws(FFmpegError) {
        library = try LibAVFilter.shared.get()
        guard let graph = library.graphAlloc() else { throw FFmpegError.outOfMemory }
        self.graph = graph
        let buffer = "buffer=video_size=\(picture.width)x\(picture.height):pix_fmt=\(picture.pixelFormat.rawValue)"
            + ":time_base=1/25:pixel_aspect=1/1"
        try check(library.graphParse(graph, "\(buffer),\(filters),buffersink", nil, nil, nil), "avfilter_graph_parse_ptr")
        // The chain's ends, taken before avfilter_graph_config appends conversions of its own.
        source = graph.pointee.filters[0]
        sink = graph.pointee.filters[Int(graph.pointee.nb_filters) - 1]
        try check(library.graphConfig(graph, nil), "avfilter_graph_config")
    }

    deinit { library.graphFree(&graph) }

    /// Takes one picture through the graph (its buffers move into it) and returns what comes out.
    /// The corresponding C functions are `av_buffersrc_add_frame` and `av_buffersink_get_frame`.
    func apply(_ picture: Frame) throws(FFmpegError) -> Frame {
        try check(library.addFrame(source, picture.pointer), "av_buffersrc_add_frame")
        let output = try Frame()
        var code = library.getFrame(sink, output.pointer)
        if code == FFmpegError.tryAgain.code {
            // The filters hold the picture back until they know no other follows.
            try check(library.addFrame(source, nil), "av_buffersrc_add_frame")
            code = library.getFrame(sink, output.pointer)
        }
        try check(code, "av_buffersink_get_frame")
        return output
    }

    /// Turns a picture clockwise by 90, 180 or 270 degrees, in its own pixel format.
    static func turn(_ picture: Frame, clockwise degrees: Int) throws(FFmpegError) -> Frame {
        let filters: String? = switch ((degrees % 360) + 360) % 360 {
        case 0: nil
        case 90: "transpose=clock"
        case 180: "hflip,vflip"
        default: "transpose=cclock"
        }
        guard let filters else { return picture }
        return try FilterGraph(for: picture, filters: filters).apply(picture)
    }
}

@available(*, unavailable)
extension FilterGraph: Sendable {}

/// The libavfilter functions cravey uses, looked up in `libavfilter.so.8` (FFmpeg 5.1's) once
/// per process; the function types are those of `<libavfilter/avfilter.h>`, `buffersrc.h` and
/// `buffersink.h` (the last two not included: their functions only take types declared in the first).
/// Shared with ``AudioFilterGraph``.
struct LibAVFilter: @unchecked Sendable {  // Immutable after loading: addresses of C functions.
    typealias Graph = UnsafeMutablePointer<AVFilterGraph>
    typealias FrameCall = @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?) -> Int32

    static let shared = Result { () throws(FFmpegError) in try LibAVFilter() }

    let graphAlloc: @convention(c) () -> Graph?
    let graphFree: @convention(c) (UnsafeMutablePointer<Graph?>?) -> Void
    let graphParse: @convention(c) (Graph?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?,
                                    UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?, UnsafeMutableRawPointer?) -> Int32
    let graphConfig: @convention(c) (Graph?, UnsafeMutableRawPointer?) -> Int32
    let addFrame: FrameCall
    let getFrame: FrameCall

    /// The corresponding C functions are `dlopen` and `dlsym`; the library stays loaded.
    private init() throws(FFmpegError) {
        let library = try LoadedLibrary("libavfilter.so.\(LIBAVFILTER_VERSION_MAJOR)", missing: .filterNotFound)
        graphAlloc = try library.symbol("avfilter_graph_alloc")
        graphFree = try library.symbol("avfilter_graph_free")
        graphParse = try library.symbol("avfilter_graph_parse_ptr")
        graphConfig = try library.symbol("avfilter_graph_config")
        addFrame = try library.symbol("av_buffersrc_add_frame")
        getFrame = try library.symbol("av_buffersink_get_frame")
    }
}
