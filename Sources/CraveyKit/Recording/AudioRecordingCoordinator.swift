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
/// stop rewrites it as a normal, seekable MP4.
public actor AudioRecordingCoordinator {
    public nonisolated let id: UUID
    /// Level readings and notices while recording; finishes when capture ends.
    public nonisolated let events: AsyncStream<RecordingEvent>

    private let eventSink: AsyncStream<RecordingEvent>.Continuation
    private let storage: FileStorageManager
    private let options: AudioRecordingOptions
    private let stopSignal = StopSignal()
    private let finished = Completion<AudioRecordingResult>()
    private var started = false

    public init(storage: FileStorageManager, options: AudioRecordingOptions = AudioRecordingOptions(), id: UUID = UUID()) {
        self.id = id
        self.storage = storage
        self.options = options
        (events, eventSink) = AsyncStream.makeStream(of: RecordingEvent.self, bufferingPolicy: .bufferingNewest(256))
    }

    /// The file being written while recording.
    public nonisolated var partialURL: URL { storage.partialURL(for: id, type: .audio) }

    /// Connects to the source and starts recording. Throws ``CraveyError`` (`.unavailable` for no
    /// sound server or an unknown source, `.cannotWrite` when the file cannot be created).
    public func start() async throws {
        guard !started else { throw CraveyError(.other, "This recording was already started.") }
        started = true
        let startedAt = ContinuousClock.now
        let options = options
        let source: String
        do {
            source = try await onDedicatedThread(named: "cravey.pulse") { () throws(PulseAudioError) -> String in
                let server = try ServerConnection()
                guard let name = options.source else { return try server.defaultSourceName() ?? "default" }
                guard try server.sources().contains(where: { $0.name == name }) else { throw PulseAudioError.noSuchEntity }
                return name
            }
        } catch let error as PulseAudioError {
            throw failStart(CraveyError.soundServer(error, source: options.source))
        }

        let queue = BlockingQueue<CaptureChunk>(capacity: 256)
        let connected = Completion<Void>()
        startCapture(from: source, into: queue, connected: connected, startedAt: startedAt)
        do {
            try await connected.value()
        } catch {
            throw failStart(CraveyError.soundServer(error as? PulseAudioError ?? .connectionRefused, source: source))
        }
        let writerReady = Completion<Void>()
        startEncoder(from: queue, ready: writerReady)
        do {
            try await writerReady.value()
        } catch {
            stopSignal.raise()
            _ = try? await finished.value()
            throw CraveyError.writing(error, to: partialURL)
        }
    }

    /// Ends a recording that never got going, so `result()` and `cancel()` return at once.
    private func failStart(_ error: CraveyError) -> CraveyError {
        eventSink.finish()
        finished.resolve(.failure(error))
        return error
    }

    /// Stops recording, finalises the file and returns it.
    public func stop() async throws -> AudioRecordingResult {
        requestStop()
        return try await result()
    }

    /// Asks the capture thread to stop after its current block, from any context (a signal
    /// handler's queue included); ``result()`` then returns the finished recording.
    public nonisolated func requestStop() {
        stopSignal.raise()
    }

    /// Waits for the recording to end by itself (``AudioRecordingOptions/maxDuration``) or by `stop()`.
    public func result() async throws -> AudioRecordingResult {
        try await finished.value()
    }

    /// Stops recording and deletes the file.
    public func cancel() async {
        stopSignal.raise()
        if started { _ = try? await finished.value() }
        try? storage.remove(partialURL)
    }

    // MARK: - Threads

    private enum CaptureChunk: Sendable {
        case samples([Int16])
        case end(CaptureSummary)
    }

    private struct CaptureSummary: Sendable {
        var samples = 0
        var peak = AudioLevel.floor
        var latency = 0.0
        var interruption: String?
    }

    /// The capture thread: blocking `pa_simple_read` of fixed 20 ms blocks, levels measured here.
    private nonisolated func startCapture(from source: String, into queue: BlockingQueue<CaptureChunk>,
                                          connected: Completion<Void>, startedAt: ContinuousClock.Instant) {
        let options = options, stopSignal = stopSignal, events = eventSink
        startThread(named: "cravey.capture") {
            let stream: CaptureStream
            do {
                stream = try CaptureStream(source: source, sampleRate: options.sampleRate, channels: options.channels,
                                           fragmentDuration: options.levelInterval)
            } catch {
                connected.resolve(.failure(error))
                return
            }
            connected.resolve(.success(()))
            let rate = Double(options.sampleRate)
            let blockFrames = max(Int(rate * options.levelInterval), 64)
            let limit = options.maxDuration.map { Int(($0 * rate).rounded()) }
            var block = [Int16](repeating: 0, count: blockFrames * options.channels)
            var summary = CaptureSummary()
            var silence = SilenceDetector()
            while !stopSignal.isRaised && summary.samples < (limit ?? .max) {
                do throws(PulseAudioError) {
                    try stream.read(into: &block)
                } catch {
                    summary.interruption = CraveyError.soundServer(error, source: source).message
                    break
                }
                if summary.samples == 0 {
                    summary.latency = (ContinuousClock.now - startedAt).seconds
                    events.yield(.started(source: source, latency: summary.latency))
                }
                let frames = min(blockFrames, (limit ?? .max) - summary.samples)
                let chunk = frames == blockFrames ? block : Array(block.prefix(frames * options.channels))
                summary.samples += frames
                let level = AudioLevel.measure(chunk, elapsed: Double(summary.samples) / rate)
                summary.peak = max(summary.peak, level.peak)
                queue.push(.samples(chunk))
                events.yield(.level(level))
                if silence.isSilent(after: level) { events.yield(.silenceWarning(source: source)) }
            }
            queue.push(.end(summary))
            events.finish()
        }
    }

    /// The encoder thread: owns the AAC encoder and the muxer, finalises the file at the end.
    private nonisolated func startEncoder(from queue: BlockingQueue<CaptureChunk>, ready: Completion<Void>) {
        let options = options, stopSignal = stopSignal, finished = finished, id = id, url = partialURL, storage = storage
        startThread(named: "cravey.encoder") {
            var writer: AudioFileWriter?
            var lock: FileLock?
            var failure: (any Error)?
            do {
                writer = try AudioFileWriter(partialOf: id, in: storage, sampleRate: options.sampleRate,
                                             channels: options.channels, bitRate: options.bitRate)
                lock = FileLock(url)
                ready.resolve(.success(()))
            } catch {
                failure = error
                ready.resolve(.failure(error))
                stopSignal.raise()
            }
            var summary = CaptureSummary()
            drain: while true {
                switch queue.pop() {
                case .samples(let samples):
                    guard failure == nil, let writer else { continue }
                    do { try writer.append(samples) } catch {
                        failure = error
                        stopSignal.raise()
                    }
                case .end(let end):
                    summary = end
                    break drain
                }
            }
            if failure == nil, let writer {
                do { try writer.finish() } catch { failure = error }
            }
            let priming = writer?.primingSamples ?? 0
            writer = nil
            if let failure {
                lock?.release()
                var error = CraveyError.writing(failure, to: url)
                if !ready.isResolved || summary.samples == 0 {
                    try? storage.remove(url)
                } else {
                    error.message += " What was recorded until then is kept in that file; once there is room, `cravey doctor --repair` adds it to the library."
                }
                finished.resolve(.failure(error))
                return
            }
            // A normal MP4 with an edit list hiding the encoder delay; should the rewrite fail,
            // the fragmented file, which every reader handles, stays.
            try? storage.rewriteAsNormalMP4(url, format: "ipod", audioPriming: priming)
            lock?.release()
            finished.resolve(.success(AudioRecordingResult(
                id: id, fileURL: url,
                duration: Double(summary.samples) / Double(options.sampleRate),
                sampleCount: summary.samples, peak: summary.peak,
                source: options.source ?? "default", startLatency: summary.latency,
                interruption: summary.interruption)))
        }
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
