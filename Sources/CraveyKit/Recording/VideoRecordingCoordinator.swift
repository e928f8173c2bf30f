import Foundation
import Synchronization

/// Where a video recording's pictures come from.
public enum CameraSource: Sendable, Equatable, CustomStringConvertible {
    /// A V4L2 camera, by its device path (`/dev/video0`) or its name as ``Cameras/list()`` gives it.
    case device(String)
    /// The synthetic camera: a moving test pattern with a running clock, delivered in real time.
    case test

    /// The first camera, `/dev/video0`.
    public static let `default` = CameraSource.device("/dev/video0")

    /// `test` for the synthetic camera, anything else a device.
    public init(argument: String) {
        self = argument == "test" ? .test : .device(argument)
    }

    public var description: String {
        switch self {
        case .device(let path): path
        case .test: "test"
        }
    }
}

/// How to record a video: the camera and its pictures, and the microphone as for audio.
public struct VideoRecordingOptions: Sendable {
    public var camera: CameraSource
    /// The size of the recorded pictures (even numbers); the camera is asked for it.
    public var width: Int
    public var height: Int
    /// Frames a second, held constant in the file.
    public var frameRate: Int
    /// The microphone, the AAC encoding, and ``AudioRecordingOptions/maxDuration``, which ends the
    /// video too.
    public var audio: AudioRecordingOptions

    public init(camera: CameraSource = .default, width: Int = 1280, height: Int = 720, frameRate: Int = 30,
                audio: AudioRecordingOptions = AudioRecordingOptions()) {
        self.camera = camera
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.audio = audio
    }
}

/// A finished video recording, not yet in the library.
public struct VideoRecordingResult: Sendable, Equatable {
    public var id: UUID
    /// The finished `.mp4`, still under its `.partial` name inside `Recordings/`.
    public var fileURL: URL
    /// Seconds, exact: audio samples captured divided by the sample rate. The video ends with it.
    public var duration: Double
    public var sampleCount: Int
    /// The loudest sample of the whole recording in dBFS.
    public var peak: Double
    /// The recording's loudness, measured on the finished file (nil if that failed).
    public var loudness: LoudnessMeasurement?
    /// The PulseAudio source recorded from.
    public var source: String
    /// The camera recorded from.
    public var camera: CameraSource
    public var width: Int
    public var height: Int
    public var frameRate: Int
    /// Frames in the file: `duration` times `frameRate`, rounded.
    public var frameCount: Int
    /// Pictures the camera delivered.
    public var capturedFrames: Int
    /// Pictures not in the file: a newer one took their frame, or the encoder was behind.
    public var droppedFrames: Int
    /// Frames that repeat the picture before them, where the camera delivered none in time.
    public var duplicatedFrames: Int
    /// Seconds from `start()` to the first captured sample.
    public var startLatency: Double
    /// Set when capture ended early (the sound server or the camera went away); what was captured
    /// until then is kept.
    public var interruption: String?
}

/// Records the camera and the microphone into an H.264/AAC `.mp4`: two capture threads (the camera
/// through libavdevice, the microphone through PulseAudio) feed one bounded queue, and one encoder
/// thread encodes both into a fragmented MP4 that survives `kill -9`; a clean stop rewrites it as a
/// normal, seekable MP4. The three threads are one ``MediaPipeline`` with two producers.
///
/// Both inputs are stamped on one clock (`ContinuousClock`, from `start()`): the audio is timed by
/// its samples from its first sample's time, which is the video's frame 0, and the video is
/// written at a constant rate (``ConstantFrameRate``), pictures dropped or repeated to hold it, and
/// ends with the audio.
public actor VideoRecordingCoordinator {
    public nonisolated let id: UUID
    /// Level readings, frame rates and notices while recording; finishes when the recording has ended.
    public nonisolated let events: AsyncStream<RecordingEvent>
    /// The file being written while recording.
    public nonisolated let partialURL: URL

    private let pipeline: Stages
    private let storage: FileStorageManager
    private var started = false

    /// Pictures queued between the camera and the encoder at most; the camera drops what comes
    /// beyond (a camera cannot wait), so a slow encoder costs frames, not memory.
    static let maxPicturesInFlight = 6

    public init(storage: FileStorageManager, options: VideoRecordingOptions = VideoRecordingOptions(), id: UUID = UUID()) {
        self.id = id
        let url = storage.partialURL(for: id, type: .video)
        let clock = RecordingClock()
        let inFlight = InFlight()
        pipeline = MediaPipeline(
            capacity: 256, threads: (producers: ["cravey.camera", "cravey.capture"], consumer: "cravey.encoder"),
            producers: [
                { try Self.captureVideo($0, options: options, origin: clock.origin, inFlight: inFlight) },
                { stage in
                    try MicrophoneCapture.run(stage, options: options.audio, origin: clock.origin,
                                              block: { .samples($0) }, end: { .audioEnd($0) })
                },
            ],
            consumer: { try Self.encode($0, options: options, id: id, storage: storage, url: url, inFlight: inFlight) },
            onCancel: { try? storage.remove(url) })
        events = pipeline.events
        partialURL = url
        self.storage = storage
    }

    /// Opens the camera and the microphone, creates the file and starts recording.
    ///
    /// Throws ``CraveyError``: `.unavailable` for a camera that cannot be opened (missing, busy,
    /// not permitted), no sound server or an unknown source; `.cannotWrite` when the file cannot
    /// be created. A failed start leaves nothing behind.
    public func start() async throws {
        guard !started else { throw CraveyError(.other, "This recording was already started.") }
        started = true
        try await pipeline.start()
    }

    /// Stops recording, finalises the file and returns it.
    public func stop() async throws -> VideoRecordingResult {
        requestStop()
        return try await result()
    }

    /// Asks both capture threads to stop after their current block or picture, from any context
    /// (a signal handler's queue included); ``result()`` then returns the finished recording.
    public nonisolated func requestStop() {
        pipeline.stop()
    }

    /// Waits for the recording to end by itself (``AudioRecordingOptions/maxDuration``) or by `stop()`.
    public func result() async throws -> VideoRecordingResult {
        try await pipeline.result()
    }

    /// Stops recording and deletes the file.
    public func cancel() async {
        pipeline.cancel()
        if started { _ = try? await pipeline.result() }
        try? storage.remove(partialURL)
    }

    // MARK: - Stages

    private typealias Stages = MediaPipeline<Captured, VideoRecordingResult, RecordingEvent>

    private enum Captured: Sendable {
        case samples(MicrophoneCapture.Block)
        case audioEnd(MicrophoneCapture.Summary)
        case picture(Picture, time: Double)
        case videoEnd(CameraSummary)
    }

    /// A picture handed from the camera's thread to the encoder's.
    // @unchecked Sendable: ownership moves with it; the camera thread never touches the frame
    // after pushing it, and from then on only the encoder thread does.
    private struct Picture: @unchecked Sendable {
        let frame: Frame
    }

    private struct CameraSummary: Sendable {
        var captured = 0
        /// Pictures the camera delivered while the encoder had too many waiting.
        var dropped = 0
        var interruption: String?
    }

    /// The recording's one clock, started when the first capture thread asks for it.
    private final class RecordingClock: Sendable {
        private let start = Locked<ContinuousClock.Instant?>(nil)

        var origin: ContinuousClock.Instant {
            start.withLock { start in
                if let start { return start }
                let now = ContinuousClock.now
                start = now
                return now
            }
        }
    }

    /// Pictures pushed by the camera and not yet taken by the encoder.
    private final class InFlight: Sendable {
        let count = Atomic(0)
    }

    /// The camera stage: opens the camera, then stamps every picture on the recording's clock and
    /// queues it; about once a second it reports the rate the camera achieves.
    private static func captureVideo(_ stage: Stages.Producer, options: VideoRecordingOptions,
                                     origin: ContinuousClock.Instant, inFlight: InFlight) throws {
        // A device is asked what it offers first: a missing one or one that is no camera is
        // named as `cravey devices` would, and the capture mode comes from its own list.
        var device: CameraDevice?
        if case .device(let pathOrName) = options.camera { device = try Cameras.resolve(pathOrName) }
        let camera: CameraInput
        do {
            camera = try CameraInput(options.camera, device: device, width: options.width, height: options.height,
                                     frameRate: options.frameRate)
        } catch {
            throw CraveyError.camera(error, device.map { .device($0.path) } ?? options.camera)
        }
        try stage.ready()
        var summary = CameraSummary()
        var window = (start: ContinuousClock.now, pictures: 0)
        while try stage.proceed() {
            let picture: Frame?
            do {
                picture = try camera.next()
            } catch {
                summary.interruption = CraveyError.camera(error, options.camera).message
                break
            }
            guard let picture else {
                summary.interruption = "The camera \(options.camera) stopped delivering pictures."
                break
            }
            let now = ContinuousClock.now
            summary.captured += 1
            if inFlight.count.load(ordering: .relaxed) >= maxPicturesInFlight {
                summary.dropped += 1
            } else {
                inFlight.count.add(1, ordering: .relaxed)
                try stage.push(.picture(Picture(frame: picture), time: (now - origin) / .seconds(1)))
            }
            window.pictures += 1
            let elapsed = (now - window.start) / .seconds(1)
            if elapsed >= 1 {
                stage.emit(.frameRate(Double(window.pictures) / elapsed))
                window = (now, 0)
            }
        }
        try stage.push(.videoEnd(summary))
    }

    /// The encoder stage: owns both encoders and the muxer, holds the video to a constant rate
    /// against the audio, finalises the file at the end and measures its loudness
    /// (``RecordingFileWriter/record(_:in:make:encode:)``).
    private static func encode(_ stage: Stages.Consumer, options: VideoRecordingOptions, id: UUID,
                               storage: FileStorageManager, url: URL, inFlight: InFlight) throws -> VideoRecordingResult {
        let audio = options.audio
        var microphone = MicrophoneCapture.Summary(source: audio.source ?? "default")
        var camera = CameraSummary()
        var video = ConstantFrameRate<Picture>(frameRate: options.frameRate)
        let rate = Double(audio.sampleRate)
        let loudness = try RecordingFileWriter.record(url, in: storage, make: {
            try RecordingFileWriter(
                partialOf: id, in: storage, sampleRate: audio.sampleRate, channels: audio.channels, bitRate: audio.bitRate,
                video: .init(width: options.width, height: options.height, frameRate: options.frameRate))
        }, encode: { writer, samples in
            func write(_ frames: [(picture: Picture, frame: Int64)]) throws {
                for (picture, frame) in frames { try writer.append(picture.frame, frame: frame) }
            }
            try stage.ready()
            while let item = try stage.pop() {
                switch item {
                case .samples(let block):
                    if video.origin == nil { video.origin = block.time }
                    try writer.append(block.samples)
                    samples += block.samples.count / audio.channels
                    try write(video.release(upTo: Double(samples) / rate))
                case .picture(let picture, let time):
                    inFlight.count.subtract(1, ordering: .relaxed)
                    video.add(picture, at: time)
                    try write(video.release(upTo: Double(samples) / rate))
                case .audioEnd(let end):
                    microphone = end
                case .videoEnd(let end):
                    camera = end
                }
            }
            try write(video.finish(at: Double(samples) / rate))
        })
        return VideoRecordingResult(
            id: id, fileURL: url, duration: Double(microphone.samples) / rate,
            sampleCount: microphone.samples, peak: microphone.peak, loudness: loudness,
            source: microphone.source, camera: options.camera,
            width: options.width, height: options.height, frameRate: options.frameRate,
            frameCount: Int(video.next), capturedFrames: camera.captured,
            droppedFrames: camera.dropped + video.dropped, duplicatedFrames: video.duplicated,
            startLatency: microphone.latency,
            interruption: microphone.interruption ?? camera.interruption)
    }
}
