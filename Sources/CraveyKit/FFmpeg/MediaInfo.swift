/// A value snapshot of what a media file holds, taken from an ``Demuxer``.
public struct MediaInfo: Sendable, Equatable {
    /// The demuxer's name, for example `mov,mp4,m4a,3gp,3g2,mj2`.
    public var formatName: String
    /// The container's own duration in seconds, when it declares one.
    public var containerDuration: Double?
    public var streams: [StreamInfo]

    public var audioStream: StreamInfo? { streams.first { $0.kind == .audio } }
    public var videoStream: StreamInfo? { streams.first { $0.kind == .video && !$0.isAttachedPicture } }
}

/// A value snapshot of one stream in a media file.
public struct StreamInfo: Sendable, Equatable {
    public enum Kind: String, Sendable { case audio, video, subtitle, data, other }

    public var index: Int
    public var kind: Kind
    /// FFmpeg's codec name, for example `aac` or `h264`.
    public var codecName: String
    /// The stream's duration in seconds, when the container declares one.
    public var duration: Double?
    public var sampleRate: Int?
    public var channels: Int?
    public var width: Int?
    public var height: Int?
    /// Rotation in degrees from the display matrix (0, 90, 180, 270), for video.
    public var rotation: Int
    /// True for cover art stored as a video stream.
    public var isAttachedPicture: Bool
}
