import Foundation

/// How to record: which source, and the encoding.
public struct AudioRecordingOptions: Sendable {
    /// The PulseAudio source to record from; nil records from the default source.
    public var source: String?
    public var sampleRate: Int
    public var channels: Int
    /// AAC bit rate in bits per second.
    public var bitRate: Int
    /// Stop by itself after this many seconds of audio (counted in samples, not wall time).
    public var maxDuration: Double?
    /// How often the server hands over audio, and so how often levels arrive (PulseAudio's `fragsize`).
    public var levelInterval: Double

    public init(source: String? = nil, sampleRate: Int = 48_000, channels: Int = 1, bitRate: Int = 96_000,
                maxDuration: Double? = nil, levelInterval: Double = 0.04) {
        self.source = source
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitRate = bitRate
        self.maxDuration = maxDuration
        self.levelInterval = levelInterval
    }
}

/// What happens while recording, in order.
public enum RecordingEvent: Sendable, Equatable {
    /// The first samples arrived from `source`, `latency` seconds after `start()` was called.
    case started(source: String, latency: Double)
    /// A level reading, one per block of audio (every ``AudioRecordingOptions/levelInterval``).
    case level(AudioLevel)
    /// The first seconds stayed below -60 dBFS: the microphone may be muted or the wrong source.
    case silenceWarning(source: String)
    /// Video only: pictures a second the camera delivered over about the last second.
    case frameRate(Double)
}

/// A finished recording, not yet in the library.
public struct AudioRecordingResult: Sendable, Equatable {
    public var id: UUID
    /// The finished `.m4a`, still under its `.partial` name inside `Recordings/`.
    public var fileURL: URL
    /// Seconds, exact: samples captured divided by the sample rate.
    public var duration: Double
    public var sampleCount: Int
    /// The loudest sample of the whole recording in dBFS.
    public var peak: Double
    /// The recording's loudness, measured on the finished file as it will play (nil if that
    /// failed): AAC's ringing where a recording starts and stops can put its true peak several
    /// dB above the captured samples', and playback's peak ceiling needs the decoded one.
    public var loudness: LoudnessMeasurement?
    /// The PulseAudio source recorded from.
    public var source: String
    /// Seconds from `start()` to the first captured sample.
    public var startLatency: Double
    /// Set when capture ended early (for example the sound server went away); what was captured
    /// until then is kept.
    public var interruption: String?
}

/// Records the microphone into an AAC `.m4a`: PulseAudio capture on a dedicated thread, a bounded
/// queue, and encoding on a second thread into a fragmented MP4 that survives `kill -9`; a clean
/// stop rewrites it as a normal, seekable MP4. Both threads are one ``MediaPipeline``.
public actor AudioRecordingCoordinator {
    public nonisolated let id: UUID
    /// Level readings and notices while recording; finishes when the recording has ended.
    public nonisolated let events: AsyncStream<RecordingEvent>
    /// The file being written while recording.
    public nonisolated let partialURL: URL

    private let pipeline: Stages
    private let storage: FileStorageManager
    private var started = false

    public init(storage: FileStorageManager, options: AudioRecordingOptions = AudioRecordingOptions(), id: UUID = UUID()) {
        self.id = id
        let url = storage.partialURL(for: id, type: .audio)
        pipeline = MediaPipeline(
            capacity: 256, threads: ("cravey.capture", "cravey.encoder"),
            producer: { stage in
                try MicrophoneCapture.run(stage, options: options, origin: .now,
                                          block: { .samples($0.samples) }, end: { .end($0) })
            },
            consumer: { try Self.encode($0, options: options, id: id, storage: storage, url: url) },
            onCancel: { try? storage.remove(url) })
        events = pipeline.events
        partialURL = url
        self.storage = storage
    }

    /// Connects to the source, opens the file and starts recording.
    ///
    /// Throws ``CraveyError`` (`.unavailable` for no sound server or an unknown source,
    /// `.cannotWrite` when the file cannot be created); a failed start leaves nothing behind.
    public func start() async throws {
        guard !started else { throw CraveyError(.other, "This recording was already started.") }
        started = true
        try await pipeline.start()
    }

    /// Stops recording, finalises the file and returns it.
    public func stop() async throws -> AudioRecordingResult {
        requestStop()
        return try await result()
    }

    /// Asks the capture thread to stop after its current block, from any context (a signal
    /// handler's queue included); ``result()`` then returns the finished recording.
    public nonisolated func requestStop() {
        pipeline.stop()
    }

    /// Waits for the recording to end by itself (``AudioRecordingOptions/maxDuration``) or by `stop()`.
    public func result() async throws -> AudioRecordingResult {
        try await pipeline.result()
    }

    /// Stops recording and deletes the file.
    public func cancel() async {
        pipeline.cancel()
        if started { _ = try? await pipeline.result() }
        // A recording that had already finished is no longer the pipeline's to clean up.
        try? storage.remove(partialURL)
    }

    // MARK: - Stages

    private typealias Stages = MediaPipeline<CaptureChunk, AudioRecordingResult, RecordingEvent>

    private enum CaptureChunk: Sendable {
        case samples([Int16])
        case end(MicrophoneCapture.Summary)
    }

    /// The encoder stage: owns the AAC encoder and the muxer, finalises the file at the end and
    /// measures its loudness (``RecordingFileWriter/record(_:in:make:encode:)``).
    private static func encode(_ stage: Stages.Consumer, options: AudioRecordingOptions, id: UUID,
                               storage: FileStorageManager, url: URL) throws -> AudioRecordingResult {
        var summary = MicrophoneCapture.Summary(source: options.source ?? "default")
        let loudness = try RecordingFileWriter.record(url, in: storage, make: {
            try RecordingFileWriter(partialOf: id, in: storage, sampleRate: options.sampleRate,
                                    channels: options.channels, bitRate: options.bitRate)
        }, encode: { writer, written in
            try stage.ready()
            while let chunk = try stage.pop() {
                switch chunk {
                case .samples(let samples):
                    try writer.append(samples)
                    written += samples.count
                case .end(let end):
                    summary = end
                }
            }
        })
        return AudioRecordingResult(
            id: id, fileURL: url,
            duration: Double(summary.samples) / Double(options.sampleRate),
            sampleCount: summary.samples, peak: summary.peak, loudness: loudness,
            source: summary.source, startLatency: summary.latency,
            interruption: summary.interruption)
    }
}
