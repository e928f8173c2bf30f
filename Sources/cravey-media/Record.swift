import ArgumentParser
import CraveyCommands
import CraveyKit
import Dispatch
import Foundation

/// Runs `cravey record` (its command line is ``RecordOptions``, which `cravey` shows in its help).
struct Record: AsyncParsableCommand {
    static let configuration = RecordOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: RecordOptions

    func run() async throws {
        let metadata = try command.metadata.metadata()
        let library = try command.options.open()
        let audio = AudioRecordingOptions(source: command.device, maxDuration: command.seconds)
        let createdAt = Date()
        let recording = command.video
            ? try await recordVideo(into: library, audio: audio, metadata: metadata, createdAt: createdAt)
            : try await recordAudio(into: library, audio: audio, metadata: metadata, createdAt: createdAt)
        Terminal.diagnostic("Saved \"\(Format.visible(recording.title))\" (\(Format.duration(recording.duration)), \(FileStorageManager.formatBytes(recording.fileSize))).")
        try Terminal.print(recording, json: command.json) { $0.id.uuidString.lowercased() }
    }

    private func recordAudio(into library: RecordingLibrary, audio: AudioRecordingOptions, metadata: RecordingMetadata,
                             createdAt: Date) async throws -> Recording {
        let coordinator = AudioRecordingCoordinator(storage: library.storage, options: audio)
        let signals = StopOnSignals { coordinator.requestStop() }
        defer { signals.cancel() }
        try await coordinator.start()
        let result = try await showingLevels(of: coordinator.events) { try await coordinator.result() }
        try await checkCaptured(result.sampleCount, from: result.source, interruption: result.interruption) { await coordinator.cancel() }
        return try SaveRecordingUseCase(library: library).execute(result, metadata: metadata, createdAt: createdAt)
    }

    private func recordVideo(into library: RecordingLibrary, audio: AudioRecordingOptions, metadata: RecordingMetadata,
                             createdAt: Date) async throws -> Recording {
        let size = command.pictureSize
        let coordinator = VideoRecordingCoordinator(
            storage: library.storage,
            options: VideoRecordingOptions(camera: CameraSource(argument: command.cameraDevice), width: size.width,
                                           height: size.height, frameRate: command.frameRate, audio: audio))
        let signals = StopOnSignals { coordinator.requestStop() }
        defer { signals.cancel() }
        try await coordinator.start()
        let result = try await showingLevels(of: coordinator.events) { try await coordinator.result() }
        try await checkCaptured(result.sampleCount, from: result.source, interruption: result.interruption) { await coordinator.cancel() }
        Terminal.diagnostic("Video: \(result.frameCount) frames of \(result.width)x\(result.height) at \(result.frameRate) fps from \(result.camera) (\(result.droppedFrames) dropped, \(result.duplicatedFrames) repeated).")
        return try SaveRecordingUseCase(library: library).execute(result, metadata: metadata, createdAt: createdAt)
    }

    /// Shows the meter while `result` waits for the recording to end.
    private func showingLevels<Result: Sendable>(of events: AsyncStream<RecordingEvent>,
                                                 _ result: () async throws -> Result) async throws -> Result {
        let view = LevelMeterView(seconds: command.seconds)
        let meter = Task { await view.show(events) }
        do {
            let value = try await result()
            await meter.value
            return value
        } catch {
            await meter.value
            throw error
        }
    }

    /// Reports an early end; a recording that captured no audio is cancelled and exits 69.
    private func checkCaptured(_ samples: Int, from source: String, interruption: String?,
                               cancel: () async -> Void) async throws {
        if let interruption {
            Terminal.diagnostic("cravey: recording ended early: \(interruption)")
        }
        guard samples > 0 else {
            await cancel()
            throw CraveyError(.unavailable, "No audio arrived from '\(source)' before the recording stopped. Check the source with `cravey devices`.")
        }
    }
}

/// Turns SIGINT and SIGTERM into a clean stop instead of killing the process.
final class StopOnSignals {
    private let sources: [any DispatchSourceSignal]

    init(_ stop: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: stop)
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// Shows what is being recorded on stderr: a live meter on a terminal, a line otherwise.
struct LevelMeterView {
    let seconds: Double?

    func show(_ events: AsyncStream<RecordingEvent>) async {
        let live = Terminal.isInteractive
        var lastDraw = -1.0
        var frameRate: Double?
        for await event in events {
            switch event {
            case .started(let source, _):
                let limit = seconds.map { " for \(Format.duration($0))" } ?? ""
                Terminal.diagnostic("Recording from \(source)\(limit). Press Ctrl-C to stop and save.")
            case .silenceWarning(let source):
                if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
                Terminal.diagnostic("cravey: warning: the input from '\(source)' has been silent for 2 seconds. The microphone may be muted or the wrong source; see `cravey devices` and --device.")
            case .level(let level):
                guard live, level.elapsed - lastDraw >= 0.1 else { continue }
                lastDraw = level.elapsed
                Terminal.diagnostic(Self.meterLine(level, frameRate: frameRate), terminator: "")
            case .frameRate(let rate):
                frameRate = rate
            }
        }
        if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
    }

    /// "● 0:03.4 [██████████░░░░░░░░░░] -12 dBFS", redrawn in place: the audio captured so far, to
    /// the tenth of a second (as sox's `rec` shows it), and the level of the latest block; for a
    /// video, then the frame rate the camera achieved over the last second ("29.9 fps").
    static func meterLine(_ level: AudioLevel, frameRate: Double? = nil) -> String {
        let width = 30
        let filled = min(max(Int(((level.rms + 60) / 60 * Double(width)).rounded()), 0), width)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let db = level.rms <= AudioLevel.floor ? " -inf" : String(format: "%5.1f", level.rms)
        let tenths = Int(level.elapsed * 10)
        let clock = String(format: "%d:%02d.%d", tenths / 600, tenths / 10 % 60, tenths % 10)
        let rate = frameRate.map { String(format: " %4.1f fps", $0) } ?? ""
        return "\r\u{1B}[2K\u{1B}[31m●\u{1B}[0m \(clock) [\(bar)] \(db) dBFS\(rate)"
    }
}
