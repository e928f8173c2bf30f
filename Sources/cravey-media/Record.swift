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
        let coordinator = AudioRecordingCoordinator(
            storage: library.storage,
            options: AudioRecordingOptions(source: command.device, maxDuration: command.seconds))
        let signals = StopOnSignals { coordinator.requestStop() }
        defer { signals.cancel() }
        let createdAt = Date()
        try await coordinator.start()
        let view = LevelMeterView(seconds: command.seconds)
        let meter = Task { await view.show(coordinator.events) }
        let result: AudioRecordingResult
        do {
            result = try await coordinator.result()
        } catch {
            await meter.value
            throw error
        }
        await meter.value
        if let interruption = result.interruption {
            Terminal.diagnostic("cravey: recording ended early: \(interruption)")
        }
        guard result.sampleCount > 0 else {
            await coordinator.cancel()
            throw CraveyError(.unavailable, "No audio arrived from '\(result.source)' before the recording stopped. Check the source with `cravey devices`.")
        }
        let recording = try SaveRecordingUseCase(library: library).execute(result, metadata: metadata, createdAt: createdAt)
        Terminal.diagnostic("Saved \"\(Format.visible(recording.title))\" (\(Format.duration(recording.duration)), \(FileStorageManager.formatBytes(recording.fileSize))).")
        try Terminal.print(recording, json: command.json) { $0.id.uuidString.lowercased() }
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
                Terminal.diagnostic(Self.meterLine(level), terminator: "")
            }
        }
        if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
    }

    /// "● 0:03.4 [██████████░░░░░░░░░░] -12 dBFS", redrawn in place: the audio captured so far, to
    /// the tenth of a second (as sox's `rec` shows it), and the level of the latest block.
    static func meterLine(_ level: AudioLevel) -> String {
        let width = 30
        let filled = min(max(Int(((level.rms + 60) / 60 * Double(width)).rounded()), 0), width)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let db = level.rms <= AudioLevel.floor ? " -inf" : String(format: "%5.1f", level.rms)
        let tenths = Int(level.elapsed * 10)
        let clock = String(format: "%d:%02d.%d", tenths / 600, tenths / 10 % 60, tenths % 10)
        return "\r\u{1B}[2K\u{1B}[31m●\u{1B}[0m \(clock) [\(bar)] \(db) dBFS"
    }
}
