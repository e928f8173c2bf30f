import Foundation

/// What to record (``RecordingLibrary/record(_:)``): the microphone, and with a ``camera`` the
/// camera too, and how to encode them.
public struct RecordingOptions: Sendable {
    /// The PulseAudio source to record from (see ``AudioDevice/sources()``); nil records from
    /// the server's default source.
    public var source: String?
    /// Stop by itself after this many seconds of audio (counted in samples, not wall time).
    public var maxDuration: Double?
    /// A camera to record video from as well, as ``CameraDevice/list()`` gives it: its device
    /// file (`/dev/video0`) or its name; `test` for the synthetic camera (a moving test pattern
    /// with a running clock, in real time). Nil records sound only.
    public var camera: String?
    /// The size of the recorded pictures (even numbers, 32 to 4096); the camera is asked for it.
    public var width: Int
    public var height: Int
    /// Video frames a second, held constant in the file.
    public var frameRate: Int
    public var sampleRate: Int
    public var channels: Int
    /// AAC bit rate in bits per second.
    public var bitRate: Int
    /// How often the server hands over audio, and so how often levels arrive (PulseAudio's `fragsize`).
    public var levelInterval: Double

    public init(source: String? = nil, maxDuration: Double? = nil, camera: String? = nil,
                width: Int = 1280, height: Int = 720, frameRate: Int = 30,
                sampleRate: Int = 48_000, channels: Int = 1, bitRate: Int = 96_000, levelInterval: Double = 0.04) {
        self.source = source
        self.maxDuration = maxDuration
        self.camera = camera
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitRate = bitRate
        self.levelInterval = levelInterval
    }

    /// Whether the sound is also held as it is captured, for the new clip's words
    /// (``Recorder/sound``): only when they will be heard (a transcriber installed and
    /// `transcribe.auto` on), since holding it resamples every block on the encoder's thread and
    /// keeps up to 38 MB. Off, the words a clip gets later are heard from its media.
    package var holdsSound = false

    /// Where the pictures come from, as ``camera`` names it; nil for sound only.
    package var cameraSource: CameraSource? { camera.map(CameraSource.init(argument:)) }
}

/// What happens while recording, in order; the stream ends when the recording has.
public enum RecordingEvent: Sendable, Equatable {
    /// The first samples arrived from `source`, `latency` seconds after the recording started.
    case started(source: String, latency: Double)
    /// A level reading, one per block of audio (every ``RecordingOptions/levelInterval``).
    case level(AudioLevel)
    /// The first seconds stayed below -60 dBFS: the microphone may be muted or the wrong source.
    case silenceWarning(source: String)
    /// Video only: pictures a second the camera delivered over about the last second.
    case frameRate(Double)
    /// Capture ended early (the sound server or the camera went away); what was captured until
    /// then is kept and can be saved.
    case interrupted(String)
    /// ``Recorder/pause()`` took effect after `elapsed` seconds recorded: nothing is recorded
    /// until `.resumed`; `.level` readings go on, their `elapsed` standing still.
    case paused(elapsed: Double)
    /// ``Recorder/resume()`` took effect: recording goes on after `elapsed` seconds recorded.
    case resumed(elapsed: Double)
    /// Video only, at the end: frames in the file, pictures dropped (a newer one took their
    /// frame, or the encoder was behind) and frames repeating the picture before them.
    case videoFrames(written: Int, dropped: Int, repeated: Int)
}
