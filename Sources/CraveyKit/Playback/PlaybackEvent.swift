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
    /// How fast it plays: 1 is the clip's own speed, 0.5 half, 2 twice (the pitch kept).
    public var speed: Double
}

/// How to play a clip (``RecordingLibrary/play(_:options:)``).
public struct PlaybackOptions: Sendable {
    /// The PulseAudio sink to play to; nil plays to the default sink.
    public var sink: String?
    /// Where to start, in seconds (clamped to the clip).
    public var start: Double
    /// Turn the clip toward -16 LUFS, its true peak kept under -1 dBTP
    /// (``LoudnessMeasurement/playbackGain(target:ceiling:)``), so every clip plays equally loud.
    public var normalize: Bool
    /// Count the play when it ends (stopped or completed); false plays a preview.
    public var countsPlay: Bool
    /// A gain in dB applied to the decoded samples when not normalizing (0 leaves them as they
    /// are); whatever the gain, no sample leaves beyond full scale.
    public var gainDB: Double
    /// How fast to play, from 0.5 (half the clip's own speed) to 2 (twice), the pitch kept
    /// (FFmpeg's `atempo`); clamped to that range.
    public var speed: Double
    /// Show a video's pictures in a window of its own (SDL2, on the display that `DISPLAY` or
    /// `WAYLAND_DISPLAY` names), in step with its sound; its keys are the command line player's
    /// when cravey's terminal app plays it (`windowKeys`), else closing it and a double click only.
    /// Without a display the sound plays alone (``PlaybackManager/videoProblem`` says why).
    public var showsVideo: Bool
    /// Title a video's window with the clip's title, which anyone who sees the screen (or a
    /// window list, a screen share) reads; otherwise it is titled "cravey".
    public var showsTitle: Bool
    /// The loudness, in LUFS, that ``normalize`` turns clips toward.
    public var loudnessTarget: Double
    /// What a key pressed in a video's window asks of the playback: the terminal's key table
    /// (CraveyTerminal's `KeyTable`, the window's keys) for the players that show a window;
    /// without one, the window's keys do nothing (closing it and a double click still work).
    package var windowKeys: @Sendable (Key) -> PlayerCommand? = { _ in nil }

    public init(sink: String? = nil, start: Double = 0, normalize: Bool = true, countsPlay: Bool = true, gainDB: Double = 0,
                showsVideo: Bool = false, showsTitle: Bool = false, loudnessTarget: Double = -16, speed: Double = 1) {
        self.sink = sink
        self.start = start
        self.normalize = normalize
        self.countsPlay = countsPlay
        self.gainDB = gainDB
        self.showsVideo = showsVideo
        self.showsTitle = showsTitle
        self.loudnessTarget = loudnessTarget
        self.speed = speed
    }
}

/// How a playback ended.
public struct PlaybackSummary: Sendable, Equatable {
    /// Seconds of the clip that reached the sink and were played (a span played twice counts
    /// twice; at another speed, the clip's seconds, not the clock's).
    public var secondsListened: Double
    /// True when it played to the end.
    public var completed: Bool
    /// Where it ended, in seconds into the clip.
    public var position: Double
    /// The recording as it is after the play: its play counted, unless it was a preview.
    public var recording: Recording?
    /// True when the play was counted.
    public var counted = false
    /// A video's pictures shown in its window, and those dropped because they were late (0
    /// without a window).
    public var picturesShown = 0
    public var picturesDropped = 0
}
