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
        let library = try command.options.open(creating: true)
        var options = RecordingOptions(source: command.device, maxDuration: command.seconds)
        if command.video {
            let size = command.pictureSize
            options.camera = CameraSource(argument: command.cameraDevice)
            (options.width, options.height, options.frameRate) = (size.width, size.height, command.frameRate)
        }
        let createdAt = Date()
        let recorder = try await library.record(options)
        let signals = StopOnSignals { recorder.stop() }
        defer { signals.cancel() }
        // `kill -USR1 PID` pauses and resumes, for scripts and desktop shortcuts.
        let pauses = OnSignals([SIGUSR1]) { recorder.isPaused ? recorder.resume() : recorder.pause() }
        defer { pauses.cancel() }
        let view = LevelMeterView(seconds: command.seconds, video: command.video ? options : nil)
        let meter = Task { await view.show(recorder.events) }
        let recording: Recording
        do {
            recording = try await recorder.save(metadata, createdAt: createdAt)
            await meter.value
        } catch {
            await meter.value
            throw error
        }
        Terminal.diagnostic("Saved \"\(Format.visible(recording.title))\" (\(Format.duration(recording.duration)), \(FileStorageManager.formatBytes(recording.fileSize))).")
        try Terminal.printSaved(recording, json: command.json)
    }
}

/// Runs an action when one of some signals arrives, instead of what the signal does by default
/// (end the process), until cancelled.
class OnSignals {
    private let numbers: [Int32]
    private let sources: [any DispatchSourceSignal]

    init(_ numbers: [Int32], _ action: @escaping @Sendable () -> Void) {
        self.numbers = numbers
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: action)
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        for number in numbers { signal(number, SIG_DFL) }
    }
}

/// Turns SIGINT, SIGTERM and SIGHUP (the terminal window closed) into a clean stop instead of
/// killing the process: a recording is saved with its title, a play is counted, an import is
/// removed, as Ctrl-C does.
final class StopOnSignals: OnSignals {
    init(_ stop: @escaping @Sendable () -> Void) {
        super.init([SIGINT, SIGTERM, SIGHUP], stop)
    }
}

/// Shows what is being recorded on stderr: a live meter on a terminal, a line otherwise, and
/// what ended early and how many frames a video holds.
struct LevelMeterView {
    let seconds: Double?
    /// A video's options, for its summary line.
    let video: RecordingOptions?

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
            case .interrupted(let reason):
                if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
                Terminal.diagnostic("cravey: recording ended early: \(reason)")
            case .paused(let elapsed), .resumed(let elapsed):
                if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
                let paused = if case .paused = event { true } else { false }
                Terminal.diagnostic(paused ? "Paused at \(Format.duration(elapsed)); SIGUSR1 (kill -USR1 \(getpid())) resumes."
                                           : "Resumed at \(Format.duration(elapsed)).")
            case .videoFrames(let written, let dropped, let repeated):
                guard let video else { continue }
                if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
                Terminal.diagnostic("Video: \(written) frames of \(video.width)x\(video.height) at \(video.frameRate) fps from \(video.camera.map { "\($0)" } ?? "") (\(dropped) dropped, \(repeated) repeated).")
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
