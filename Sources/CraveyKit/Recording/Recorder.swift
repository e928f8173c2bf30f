import Foundation

/// A recording under way, made by ``RecordingLibrary/record(_:)``: it captures and encodes into
/// a file of the library as it goes, then is saved (``save(_:createdAt:)``) or discarded
/// (``discard()``).
///
/// Capture runs on threads of its own (the microphone, and the camera for a video) feeding one
/// bounded queue, and one encoder thread writes a fragmented MP4 that stays playable at every
/// moment: a crash loses at most the last half second, and the next repair registers what was
/// recorded. ``events`` reports levels and notices as they come.
///
/// Call ``save(_:createdAt:)`` or ``discard()`` once: until then the recording goes on (up to
/// ``RecordingOptions/maxDuration``, or until ``stop()``), and its file stays in the library
/// under a name that says it is being written. ``pause()`` and ``resume()`` leave stretches out
/// of it; ``waveform`` is the picture of what it holds so far.
public final class Recorder: Sendable {
    public let id: RecordingID
    /// `.audio`, or `.video` when recording a camera.
    public let type: RecordingType
    /// Level readings and notices while recording; finishes when the recording has ended.
    public let events: AsyncStream<RecordingEvent>
    /// The file being written while recording.
    package let partialURL: URL

    typealias Stages = MediaPipeline<Captured, RecordingResult, RecordingEvent>

    private let pipeline: Stages
    private let store: LibraryStore
    private let control: RecordingControl

    /// A recorder of `coordinator`'s inputs into `storage`, not started.
    init(into store: LibraryStore, coordinator: some RecordingCoordinator, id: RecordingID = RecordingID()) {
        self.id = id
        type = coordinator.type
        let file = ClipFiles(id: id, type: coordinator.type).media(.recording)
        let url = store.files?.url(of: file) ?? URL(fileURLWithPath: file.path)
        let control = RecordingControl(sampleRate: coordinator.options.sampleRate, channels: coordinator.options.channels)
        let producers = coordinator.producers(control: control)
        pipeline = Stages(
            capacity: 256, threads: (producers: producers.map(\.thread), consumer: "cravey.encoder"),
            producers: producers.map(\.body),
            consumer: { try Self.encode($0, coordinator, id: id, store: store, file: file, url: url, control: control) },
            onCancel: { store.remove(file) })
        events = pipeline.events
        partialURL = url
        self.store = store
        self.control = control
    }

    /// Opens the inputs and the file, and starts recording.
    ///
    /// Throws ``CraveyError`` (`.unavailable` for no sound server, an unknown source or a camera
    /// that cannot be opened, `.cannotWrite` when the file cannot be created); a failed start
    /// leaves nothing behind.
    func start() async throws {
        try await pipeline.start()
    }

    /// Asks the recording to stop after the block or picture each input is reading, from any
    /// context (a signal handler's queue included); ``save(_:createdAt:)`` then saves it.
    public func stop() {
        pipeline.stop()
    }

    /// Pauses the recording, from any context (a signal handler's queue included): from the
    /// next block of audio (within ``RecordingOptions/levelInterval``), what the microphone and
    /// the camera capture is read and let go, and nothing is written, until ``resume()``.
    ///
    /// The file holds only what was recorded, with no gap: its duration is the sum of the
    /// stretches recorded, to the sample, and ``RecordingOptions/maxDuration`` counts only them.
    /// Where a pause ends, the sound before it fades into the sound after it over 5 ms, joined
    /// where their waves meet, so the joint makes no click; a video's paused pictures go with
    /// the sound, keeping both tracks in step. ``events`` says `.paused` and `.resumed` once
    /// they take effect; `.level` readings go on meanwhile, their `elapsed` standing still.
    /// Nothing happens unless the recording is running unpaused.
    public func pause() {
        pipeline.pause()
    }

    /// Records again after ``pause()``.
    public func resume() {
        pipeline.resume()
    }

    /// Whether the recording is paused: the pipeline's pause, which the capture stages read at
    /// every block (the `.paused` event follows with the next block).
    public var isPaused: Bool { pipeline.state == .paused }

    /// The waveform of what was recorded so far, from the samples as they were captured: to draw
    /// while recording, or to show before saving. Once the recording has ended it is the
    /// waveform the clip is saved with.
    package var waveform: Waveform { control.waveform }

    /// The sound recorded, as it was captured before it was encoded, held for its words: whole
    /// once the recording has ended (``HeldSound``).
    package var sound: HeldSound { control.sound }

    /// Waits for the recording to end (its ``RecordingOptions/maxDuration``, or ``stop()``),
    /// finishes its file and saves it into the library with `metadata`; returns its row.
    ///
    /// Finishing rewrites the file as a normal MP4 (index up front), measures its loudness,
    /// keeps the waveform measured while recording and makes a video's thumbnail; a step that
    /// fails keeps the clip all the same. A recording
    /// into which no audio arrived is discarded, and throws `.unavailable`; one that could not
    /// be written throws `.cannotWrite`, keeping what was recorded if anything was.
    public func save(_ metadata: RecordingMetadata, createdAt: Date = Date()) async throws -> Recording {
        try await save(metadata, createdAt: createdAt, markers: { [] })
    }

    /// ``save(_:createdAt:)`` with the markers made while it recorded (`m`), asked for once the
    /// recording has ended and saved in the clip's own transaction: those within the clip are
    /// its markers from the moment it is saved, never a second write a crash could lose.
    package func save(_ metadata: RecordingMetadata, createdAt: Date = Date(),
                      markers: @Sendable () async -> [ClipMarker]) async throws -> Recording {
        let result = try await pipeline.result()
        guard result.sampleCount > 0 else {
            await discard()
            throw CraveyError(.unavailable, "No audio arrived from '\(result.source)' before the recording stopped.",
                              advice: .listDevices)
        }
        let finisher = ClipFinisher(store: store)
        let waveform = control.waveform
        let marked = await markers()
        return try await onDedicatedThread(named: "cravey.finish") {
            try finisher.finish(.init(file: result.file, id: result.id, type: result.type, duration: result.duration,
                                      fragmented: true, primingSamples: result.primingSamples, waveform: waveform),
                                metadata: metadata, createdAt: createdAt, markers: marked)
        }
    }

    /// Stops recording and deletes what was written; nothing is saved.
    public func discard() async {
        pipeline.cancel()
        // Waits for the stages to end: a cancelled pipeline's result is CancellationError.
        _ = try? await pipeline.result()
        // A recording that had already ended is no longer the pipeline's to clean up.
        store.remove(ClipFiles(id: id, type: type).media(.recording))
    }

    /// Waits for the recording to end and returns what was recorded, not yet saved.
    package func result() async throws -> RecordingResult {
        try await pipeline.result()
    }

    // MARK: - The encoder stage

    /// The encoder stage: creates the file, runs the coordinator's encoding loop, and closes the
    /// file. On a failure a file holding something is kept and released, no longer this
    /// process's, for a repair to register, and one holding nothing goes; the error names the
    /// file and says what was kept. A cancellation, or a capture stage's error, surfaces as it is.
    private static func encode(_ stage: Stages.Consumer, _ coordinator: some RecordingCoordinator, id: RecordingID,
                               store: LibraryStore, file: StoredFile, url: URL, control: RecordingControl) throws -> RecordingResult {
        let writer: RecordingFileWriter
        do {
            // The writer creates the file and removes it again if it cannot start.
            writer = try RecordingFileWriter(partialOf: id, in: store, options: coordinator.options, measuring: control)
        } catch {
            throw CraveyError.writing(error, to: url)
        }
        var result = RecordingResult(id: id, type: coordinator.type, file: file, fileURL: url, options: coordinator.options)
        var written = 0
        do {
            try coordinator.encode(stage, into: writer, result: &result, written: &written)
            try writer.finish()
        } catch {
            if written == 0 { store.remove(file) } else { store.release(file) }
            if error is CancellationError { throw error }
            var failure = CraveyError.writing(error, to: url)
            if written > 0 {
                failure.message += " What was recorded until then is kept in that file."
                failure.advice.append(.registerWithRepair)
            }
            throw failure
        }
        result.primingSamples = writer.primingSamples
        return result
    }
}

/// One configuration of the ``Recorder``: its capture stages and its encoding loop. The shell
/// (start, stop, save, discard, the file's life) is the recorder's, once.
protocol RecordingCoordinator: Sendable {
    var type: RecordingType { get }
    var options: RecordingOptions { get }

    /// The capture stages, each on a thread of that name, all stamping on `control`'s one clock
    /// and reading on through the pipeline's pause (the microphone leaving out what it reads
    /// meanwhile).
    func producers(control: RecordingControl) -> [(thread: String, body: @Sendable (Recorder.Stages.Producer) throws -> Void)]

    /// The encoder stage's loop: pops what the capture stages queued until they have all ended,
    /// hands it to `writer`, counts in `written` what it handed over, and notes in `result` what
    /// the captures reported.
    func encode(_ stage: Recorder.Stages.Consumer, into writer: RecordingFileWriter,
                result: inout RecordingResult, written: inout Int) throws
}

/// What capture stages hand the encoder stage, in the order they pushed it.
enum Captured: Sendable {
    case samples(MicrophoneCapture.Block)
    /// A pause began with the audio captured at this time (seconds on the recording's clock):
    /// nothing from then on is recorded, until ``audioResumed(time:)``.
    case audioPaused(time: Double)
    /// The pause ended: the audio is recorded again from the sample captured at this time.
    case audioResumed(time: Double)
    case audioEnd(MicrophoneCapture.Summary)
    case picture(CapturedPicture, time: Double)
    case videoEnd(CameraSummary)
}

/// A recording's one clock, started when the first capture stage asks for it.
final class RecordingClock: Sendable {
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

/// What a recording's owner and its stages share: the one clock, and the waveform and the sound
/// of what was recorded so far. (Whether it is paused is the pipeline's: ``Recorder/Stages``.)
final class RecordingControl: Sendable {
    let clock = RecordingClock()
    private let peaks: Locked<PeakMeter>
    /// What was written, at the transcriber's rate (the encoder's thread fills it).
    let sound = HeldSound()

    init(sampleRate: Int, channels: Int) {
        peaks = Locked(PeakMeter(sampleRate: sampleRate, channels: channels))
    }

    /// Measures samples as they are written (the encoder's thread, not the capture's).
    func record(_ samples: [Int16]) {
        peaks.withLock { $0.append(samples) }
    }

    /// The waveform of what was recorded so far.
    var waveform: Waveform { peaks.withLock { $0.waveform } }
}

/// A finished recording, not yet saved: its file and what its captures reported.
package struct RecordingResult: Sendable, Equatable {
    package var id: RecordingID
    package var type: RecordingType
    /// The finished fragmented MP4, still under its `.partial` name inside `Recordings/`.
    package var file: StoredFile
    /// Where that is, for messages.
    package var fileURL: URL
    package var sampleRate: Int
    /// Samples captured (per channel); the duration is counted from them.
    package var sampleCount = 0
    /// The loudest sample of the whole recording in dBFS.
    package var peak = AudioLevel.floor
    /// The PulseAudio source recorded from.
    package var source: String
    /// Seconds from the start to the first captured sample.
    package var startLatency = 0.0
    /// Set when capture ended early; what was captured until then is kept.
    package var interruption: String?
    /// Samples of encoder delay in front of the audio, which a rewrite hides with an edit list.
    package var primingSamples: Int64 = 0
    /// The camera recorded from, and the video's format; nil for a sound recording.
    package var camera: CameraSource?
    package var width = 0
    package var height = 0
    package var frameRate = 0
    /// Frames in the file: `duration` times `frameRate`, rounded.
    package var frameCount = 0
    /// Pictures the camera delivered.
    package var capturedFrames = 0
    /// Pictures not in the file: a newer one took their frame, or the encoder was behind.
    package var droppedFrames = 0
    /// Frames that repeat the picture before them, where the camera delivered none in time.
    package var duplicatedFrames = 0

    init(id: RecordingID, type: RecordingType, file: StoredFile, fileURL: URL, options: RecordingOptions) {
        self.file = file
        self.id = id
        self.type = type
        self.fileURL = fileURL
        sampleRate = options.sampleRate
        source = options.source ?? "default"
        camera = options.cameraSource
        if options.camera != nil {
            (width, height, frameRate) = (options.width, options.height, options.frameRate)
        }
    }

    /// Seconds, exact: samples captured divided by the sample rate. A video ends with its audio.
    package var duration: Double { Double(sampleCount) / Double(sampleRate) }

    /// Notes what the microphone's capture stage reported at its end.
    mutating func apply(_ microphone: MicrophoneCapture.Summary) {
        sampleCount = microphone.samples
        peak = microphone.peak
        source = microphone.source
        startLatency = microphone.latency
        interruption = microphone.interruption ?? interruption
    }
}
