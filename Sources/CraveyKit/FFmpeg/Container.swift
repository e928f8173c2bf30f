/// The container the library keeps each kind of recording in: the one place that picks the
/// muxer's name.
enum Container {
    /// AAC audio in `.m4a`: the MP4 family's `ipod` muxer, which writes the M4A brand.
    case m4a
    /// H.264 video with AAC audio in `.mp4`.
    case mp4

    init(for type: RecordingType) {
        self = type == .audio ? .m4a : .mp4
    }

    /// The muxer's name for `avformat_alloc_output_context2`.
    var formatName: String {
        switch self {
        case .m4a: "ipod"
        case .mp4: "mp4"
        }
    }
}
