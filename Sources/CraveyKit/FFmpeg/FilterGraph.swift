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

    /// Builds a graph for pictures shaped like `picture`, through `filters` (a name and its
    /// arguments) in order. The corresponding C functions are `avfilter_graph_alloc`,
    /// `avfilter_graph_create_filter`, `avfilter_link` and `avfilter_graph_config`.
    init(for picture: Frame, filters: [(name: String, arguments: String?)]) throws(FFmpegError) {
        library = try LibAVFilter.shared.get()
        guard let graph = library.graphAlloc() else { throw FFmpegError.outOfMemory }
        self.graph = graph
        let shape = "video_size=\(picture.width)x\(picture.height):pix_fmt=\(picture.pixelFormat.rawValue)"
            + ":time_base=1/25:pixel_aspect=1/1"
        let source = try add("buffer", arguments: shape)
        var previous = source
        for filter in filters {
            let next = try add(filter.name, arguments: filter.arguments)
            try check(library.link(previous, 0, next, 0), "avfilter_link")
            previous = next
        }
        let sink = try add("buffersink", arguments: nil)
        try check(library.link(previous, 0, sink, 0), "avfilter_link")
        try check(library.graphConfig(graph, nil), "avfilter_graph_config")
        self.source = source
        self.sink = sink
    }

    deinit { library.graphFree(&graph) }

    private func add(_ name: String, arguments: String?) throws(FFmpegError) -> UnsafeMutablePointer<AVFilterContext> {
        guard let filter = library.getByName(name) else {
            throw FFmpegError(code: FFmpegError.filterNotFound.code, operation: "avfilter_get_by_name(\(name))")
        }
        var context: UnsafeMutablePointer<AVFilterContext>?
        try check(library.createFilter(&context, filter, name, arguments, nil, graph), "avfilter_graph_create_filter")
        return context!
    }

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
        let filters: [(name: String, arguments: String?)] = switch ((degrees % 360) + 360) % 360 {
        case 0: []
        case 90: [("transpose", "clock")]
        case 180: [("hflip", nil), ("vflip", nil)]
        default: [("transpose", "cclock")]
        }
        guard !filters.isEmpty else { return picture }
        return try FilterGraph(for: picture, filters: filters).apply(picture)
    }
}

@available(*, unavailable)
extension FilterGraph: Sendable {}

/// The libavfilter functions cravey uses, looked up in `libavfilter.so.8` (FFmpeg 5.1's) once
/// per process; the function types are those of `<libavfilter/avfilter.h>`, `buffersrc.h` and
/// `buffersink.h`.
private struct LibAVFilter: @unchecked Sendable {  // Immutable after loading: addresses of C functions.
    typealias GraphAlloc = @convention(c) () -> UnsafeMutablePointer<AVFilterGraph>?
    typealias GraphFree = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterGraph>?>?) -> Void
    typealias GetByName = @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVFilter>?
    typealias CreateFilter = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterContext>?>?,
                                             UnsafePointer<AVFilter>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                             UnsafeMutableRawPointer?, UnsafeMutablePointer<AVFilterGraph>?) -> Int32
    typealias Link = @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UInt32,
                                     UnsafeMutablePointer<AVFilterContext>?, UInt32) -> Int32
    typealias GraphConfig = @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafeMutableRawPointer?) -> Int32
    typealias FrameCall = @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?) -> Int32

    static let soname = "libavfilter.so.\(LIBAVFILTER_VERSION_MAJOR)"
    static let shared = Result { () throws(FFmpegError) in try LibAVFilter() }

    let graphAlloc: GraphAlloc
    let graphFree: GraphFree
    let getByName: GetByName
    let createFilter: CreateFilter
    let link: Link
    let graphConfig: GraphConfig
    let addFrame: FrameCall
    let getFrame: FrameCall

    /// The corresponding C functions are `dlopen` and `dlsym`; the library stays loaded.
    private init() throws(FFmpegError) {
        guard let handle = dlopen(Self.soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? Self.soname
            throw FFmpegError(code: FFmpegError.filterNotFound.code, operation: "dlopen(\(reason))")
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(FFmpegError) -> T {
            guard let address = dlsym(handle, name) else {
                throw FFmpegError(code: FFmpegError.filterNotFound.code, operation: "dlsym(\(name))")
            }
            return unsafeBitCast(address, to: type)
        }
        graphAlloc = try symbol("avfilter_graph_alloc", as: GraphAlloc.self)
        graphFree = try symbol("avfilter_graph_free", as: GraphFree.self)
        getByName = try symbol("avfilter_get_by_name", as: GetByName.self)
        createFilter = try symbol("avfilter_graph_create_filter", as: CreateFilter.self)
        link = try symbol("avfilter_link", as: Link.self)
        graphConfig = try symbol("avfilter_graph_config", as: GraphConfig.self)
        addFrame = try symbol("av_buffersrc_add_frame", as: FrameCall.self)
        getFrame = try symbol("av_buffersink_get_frame", as: FrameCall.self)
    }
}
