import CraveyCommands
import CraveyKit
import Foundation

/// Shows what is being recorded on stderr: a live meter on a terminal, a line otherwise, and
/// what ended early and how many frames a video holds.
package struct LevelMeterView {
    let seconds: Double?
    /// A video's options, for its summary line.
    let video: RecordingOptions?
    /// Whether space pauses (stdin is the terminal), for the first line.
    var spaceToPause = false
    /// The meter's line as last drawn, to draw again when the terminal is taken back after
    /// Ctrl-Z and `fg`.
    package let drawn = Locked("")
    /// Where the recording stands, in seconds, as its latest level said: where `m` marks.
    package let elapsed = Locked(0.0)
    /// The markers made while recording (`m`), shown after the meter: their count, or the label
    /// being typed.
    package let markers = Locked(MarkerKeys([]))

    package init(seconds: Double?, video: RecordingOptions?, spaceToPause: Bool = false) {
        (self.seconds, self.video, self.spaceToPause) = (seconds, video, spaceToPause)
    }

    /// What `key` does while recording, as the key table's recorder keys say: `m` marks the
    /// moment and the label typed after it is the markers'; space pauses and goes on (`pausing`).
    package func handle(_ key: Key, pausing: () -> Void) {
        let action = KeyTable.action(for: key, in: .recorder)
        let mine = markers.withLock { $0.handle(key, action, at: elapsed.withLock { $0 }) }
        if mine == .notMine, action == .pauseRecording { pausing() }
    }

    package func show(_ events: AsyncStream<RecordingEvent>) async {
        // The meter is drawn again in place: it needs a terminal on stderr that does more than
        // print lines (not TERM=dumb). NO_COLOR takes its colour, not the meter.
        let live = Terminal.canRedraw
        var meter = MeterLine(colour: Terminal.isInteractive)
        var lastDraw = -1.0
        var latest: AudioLevel?
        for await event in events {
            switch event {
            case .started(let source, _):
                let limit = seconds.map { " for \(Format.duration($0))" } ?? ""
                let keys = spaceToPause ? KeyTable.labels(.recorder).joined(separator: "; ") + "; Ctrl-C stops and saves." : "Press Ctrl-C to stop and save."
                Terminal.diagnostic("Recording from \(source)\(limit). \(keys)")
            case .silenceWarning(let source):
                if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
                Terminal.diagnostic("cravey: warning: the input from '\(source)' has been silent for 2 seconds. The microphone may be muted or the wrong source; see `cravey devices` and --device.")
            case .level(let level):
                latest = level
                elapsed.withLock { $0 = level.elapsed }
                guard live else { continue }
                meter.add(level)
                // At least 10 times a second: every block (40 ms) past 0.1 s since the last.
                guard !meter.paused, level.elapsed - lastDraw >= 0.099 else { continue }
                lastDraw = level.elapsed
                draw(meter, level)
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
                    draw(meter, level)
                }
            case .videoFrames(let written, let dropped, let repeated):
                guard let video else { continue }
                if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
                Terminal.diagnostic("Video: \(written) frames of \(video.width)x\(video.height) at \(video.frameRate) fps from \(video.camera.map { "\($0)" } ?? "") (\(dropped) dropped, \(repeated) repeated).")
            }
        }
        if live { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
    }

    /// Draws the meter's line in place, and after it the markers made (`m`): how many, or the
    /// label being typed.
    private func draw(_ meter: MeterLine, _ level: AudioLevel) {
        let (count, prompt) = markers.withLock { ($0.markers.count, $0.prompt) }
        let said = prompt.map { " · " + $0 } ?? (count > 0 ? " · \(ProgressLine.markerMark) \(count)" : "")
        let line = meter.line(level, width: max(Terminal.columns - TerminalScreen.width(of: said), 1)) + said
        Terminal.diagnostic(line, terminator: "")
        drawn.withLock { $0 = line }
    }
}
