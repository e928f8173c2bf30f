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
        // Space pauses and resumes on a terminal; Ctrl-C still stops (the terminal sends SIGINT).
        let onTerminal = isatty(0) == 1 && isatty(2) == 1
        let keys = onTerminal ? KeyReader(handling: { key in
            if key == .character(" ") { recorder.isPaused ? recorder.resume() : recorder.pause() }
        }) : nil
        defer { keys?.restore() }
        let view = LevelMeterView(seconds: command.seconds, video: command.video ? options : nil, spaceToPause: keys != nil)
        let meter = Task { await view.show(recorder.events) }
        var recording: Recording
        do {
            recording = try await recorder.save(metadata, createdAt: createdAt)
            await meter.value
        } catch {
            await meter.value
            throw error
        }
        keys?.restore()
        pauses.cancel()
        Terminal.diagnostic("Saved \"\(Format.visible(recording.title))\" (\(Format.duration(recording.duration)), \(ByteCount.text(recording.fileSize))).")
        // Saved durably before the look back: whatever happens there, the clip is kept.
        if onTerminal && !command.noPreview {
            var preview = Preview(library: library, recording: recording, sink: nil, signals: signals)
            guard let kept = await preview.run() else { return }
            recording = kept
        }
        try Terminal.printSaved(recording, json: command.json)
    }
}

/// Runs an action when one of some signals arrives, instead of what the signal does by default
/// (end the process), until cancelled; ``handle(with:)`` changes the action.
///
/// The signal is caught by a handler (`sigaction`) in whichever thread the kernel delivers it to,
/// which only writes its number to a pipe; one thread of this process's own reads the pipe and
/// runs the action. A libdispatch signal source is no good here: it blocks the signal in the
/// thread that makes it only, and with the sound server's and the pipeline's threads already
/// running, a signal sent to the process could land in one of those and be ignored.
class OnSignals {
    private let numbers: [Int32]

    init(_ numbers: [Int32], _ action: @escaping @Sendable () -> Void) {
        self.numbers = numbers
        SignalPipe.shared.install(numbers, action)
    }

    /// From now on, runs `action` instead.
    func handle(with action: @escaping @Sendable () -> Void) {
        SignalPipe.shared.install(numbers, action)
    }

    /// Back to what the signals do by default.
    func cancel() {
        SignalPipe.shared.remove(numbers)
    }
}

/// The write end of ``SignalPipe``'s pipe, for the signal handler, which may only call
/// async-signal-safe functions (`write`); set once, before any handler is installed.
nonisolated(unsafe) private var signalPipeInput: Int32 = -1

/// The pipe signals are handed over through, and the thread that reads it (``OnSignals``).
private final class SignalPipe: Sendable {
    static let shared = SignalPipe()
    private let actions = Locked<[Int32: @Sendable () -> Void]>([:])

    private init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fatalError("cravey: cannot make a pipe for signals: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        signalPipeInput = ends[1]
        let output = ends[0]
        let thread = Thread { [actions] in
            var number: Int32 = 0
            while true {
                let count = withUnsafeMutableBytes(of: &number) { read(output, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count == MemoryLayout<Int32>.size else { return }
                actions.withLock { $0[number] }?()
            }
        }
        thread.name = "cravey.signals"
        thread.start()
    }

    /// Catches `numbers`, each running `action`. The corresponding C function is `sigaction`.
    func install(_ numbers: [Int32], _ action: @escaping @Sendable () -> Void) {
        actions.withLock { actions in for number in numbers { actions[number] = action } }
        for number in numbers {
            var caught = sigaction()
            caught.__sigaction_handler.sa_handler = { number in
                var number = number
                _ = withUnsafeBytes(of: &number) { write(signalPipeInput, $0.baseAddress, $0.count) }
            }
            caught.sa_flags = SA_RESTART
            sigemptyset(&caught.sa_mask)
            sigaction(number, &caught, nil)
        }
    }

    /// Gives `numbers` back their default action.
    func remove(_ numbers: [Int32]) {
        for number in numbers { signal(number, SIG_DFL) }
        actions.withLock { actions in for number in numbers { actions[number] = nil } }
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
    /// Whether space pauses (stdin is the terminal), for the first line.
    var spaceToPause = false

    func show(_ events: AsyncStream<RecordingEvent>) async {
        // The meter needs a terminal on stderr; NO_COLOR takes its colour, not the meter.
        let live = isatty(2) == 1
        var meter = MeterLine(colour: Terminal.isInteractive)
        var lastDraw = -1.0
        var latest: AudioLevel?
        for await event in events {
            switch event {
            case .started(let source, _):
                let limit = seconds.map { " for \(Format.duration($0))" } ?? ""
                let keys = spaceToPause ? "Space pauses; Ctrl-C stops and saves." : "Press Ctrl-C to stop and save."
                Terminal.diagnostic("Recording from \(source)\(limit). \(keys)")
            case .silenceWarning(let source):
                if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
                Terminal.diagnostic("cravey: warning: the input from '\(source)' has been silent for 2 seconds. The microphone may be muted or the wrong source; see `cravey devices` and --device.")
            case .level(let level):
                latest = level
                guard live else { continue }
                meter.add(level)
                // At least 10 times a second: every block (40 ms) past 0.1 s since the last.
                guard !meter.paused, level.elapsed - lastDraw >= 0.099 else { continue }
                lastDraw = level.elapsed
                Terminal.diagnostic(meter.line(level, width: Terminal.columns), terminator: "")
            case .frameRate(let rate):
                meter.frameRate = rate
            case .interrupted(let reason):
                if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
                Terminal.diagnostic("cravey: recording ended early: \(reason)")
            case .paused(let elapsed), .resumed(let elapsed):
                let paused = if case .paused = event { true } else { false }
                meter.paused = paused
                if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
                let resume = spaceToPause ? "space or " : ""
                Terminal.diagnostic(paused ? "Paused at \(Format.duration(elapsed)); \(resume)SIGUSR1 (kill -USR1 \(getpid())) resumes."
                                           : "Resumed at \(Format.duration(elapsed)).")
                // The meter stays, saying paused, its clock stopped where the recording stands.
                if live, paused, var level = latest {
                    level.elapsed = elapsed
                    Terminal.diagnostic(meter.line(level, width: Terminal.columns), terminator: "")
                }
            case .videoFrames(let written, let dropped, let repeated):
                guard let video else { continue }
                if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
                Terminal.diagnostic("Video: \(written) frames of \(video.width)x\(video.height) at \(video.frameRate) fps from \(video.camera.map { "\($0)" } ?? "") (\(dropped) dropped, \(repeated) repeated).")
            }
        }
        if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
    }
}

/// The recorder's live line: "● 0:03.4 ▂▃▅▇█▆▃▂▁▁▂▅▇ -12.0 dBFS", redrawn in place: the audio
/// captured so far, to the tenth of a second (as sox's `rec` shows it), the sound of the last
/// seconds scrolling from right to left (one bar a capture block, the block's peak from -60 to
/// 0 dBFS as U+2581 to U+2588), and the level of the latest block; for a video, then the frame
/// rate the camera achieved over the last second ("29.9 fps"). Paused: "❚❚" and "paused".
struct MeterLine {
    /// Red for the dot, unless NO_COLOR.
    let colour: Bool
    var paused = false
    var frameRate: Double?
    /// The latest blocks' peaks (dBFS), oldest first, as many as the widest line shows.
    private(set) var history: [Double] = []
    static let widest = 200

    init(colour: Bool) {
        self.colour = colour
    }

    mutating func add(_ level: AudioLevel) {
        history.append(level.peak)
        if history.count > Self.widest { history.removeFirst(history.count - Self.widest) }
    }

    /// The line for a terminal `width` columns wide: the waveform takes what the rest leaves,
    /// from 8 to 60 bars; none when the terminal is narrower than the rest.
    func line(_ level: AudioLevel, width: Int) -> String {
        let tenths = Int(level.elapsed * 10)
        let clock = String(format: "%d:%02d.%d", tenths / 600, tenths / 10 % 60, tenths % 10)
        let db = level.rms <= AudioLevel.floor ? " -inf" : String(format: "%5.1f", level.rms)
        let rate = frameRate.map { String(format: " %4.1f fps", $0) } ?? ""
        let state = paused ? " paused" : ""
        let fixed = 2 + clock.count + 1 + 1 + db.count + 5 + rate.count + state.count
        let bars = min(60, width - 1 - fixed)
        let wave = bars >= 8 ? " " + Self.bars(history.suffix(bars), width: bars) : ""
        let mark = paused ? "❚❚" : (colour ? "\u{1B}[31m●\u{1B}[0m" : "●")
        return "\r\u{1B}[2K\(mark) \(clock)\(wave) \(db) dBFS\(rate)\(state)"
    }

    /// `peaks` as `width` bars, right-aligned (the newest at the right), blank where no block
    /// has come yet.
    static func bars(_ peaks: ArraySlice<Double>, width: Int) -> String {
        let drawn = peaks.map { peak in Character(Waveform.bar(Int(((peak + 60) / 60 * 8).rounded(.down)))) }
        return String(repeating: " ", count: max(width - drawn.count, 0)) + String(drawn)
    }
}
