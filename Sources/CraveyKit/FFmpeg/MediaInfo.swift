/// A value snapshot of what a media file holds, taken from an ``Demuxer``.
package struct MediaInfo: Sendable, Equatable {
    /// The demuxer's name, for example `mov,mp4,m4a,3gp,3g2,mj2`.
    package var formatName: String
    /// The container's own duration in seconds, when it declares one.
    package var containerDuration: Double?
    package var streams: [StreamInfo]

    package var audioStream: StreamInfo? { streams.first { $0.kind == .audio } }
    package var videoStream: StreamInfo? { streams.first { $0.kind == .video && !$0.isAttachedPicture } }
}

/// A value snapshot of one stream in a media file.
package struct StreamInfo: Sendable, Equatable {
    package enum Kind: String, Sendable { case audio, video, subtitle, data, other }

    package var index: Int
    package var kind: Kind
    /// FFmpeg's codec name, for example `aac` or `h264`.
    package var codecName: String
    /// The stream's duration in seconds, when the container declares one.
    package var duration: Double?
    package var sampleRate: Int?
    package var channels: Int?
    package var width: Int?
    package var height: Int?
    /// Rotation in degrees from the display matrix (0, 90, 180, 270), for video.
    package var rotation: Int
    /// True for cover art stored as a video stream.
    package var isAttachedPicture: Bool
}
