/// Where a playback is in its life.
public enum PlaybackState: String, Sendable, Codable {
    case playing
    case paused
    /// Stopped before the end (the app's dismiss).
    case stopped
    /// Played to the end, the last sample heard.
    case completed
}

/// What a ``PlaybackManager`` reports, at least 10 times a second while it plays or is paused,
/// and at once when its state changes.
public struct PlaybackEvent: Sendable, Equatable, Codable {
    public var state: PlaybackState
    /// Seconds into the clip that the sink has played (its latency accounted for).
    public var position: Double
    /// The clip's length in seconds.
    public var duration: Double
}

/// How to play a clip.
public struct PlaybackOptions: Sendable {
    /// The PulseAudio sink to play to; nil plays to the default sink.
    public var sink: String?
    /// Where to start, in seconds (clamped to the clip).
    public var start: Double
    /// A gain in dB applied to the decoded samples (0 leaves them as they are); whatever the gain,
    /// no sample leaves beyond full scale.
    public var gainDB: Double

    public init(sink: String? = nil, start: Double = 0, gainDB: Double = 0) {
        self.sink = sink
        self.start = start
        self.gainDB = gainDB
    }
}

/// How a playback ended.
public struct PlaybackSummary: Sendable, Equatable {
    /// Seconds of the clip that reached the sink and were played (a span played twice counts twice).
    public var secondsListened: Double
    /// True when it played to the end.
    public var completed: Bool
    /// Where it ended, in seconds into the clip.
    public var position: Double
}
