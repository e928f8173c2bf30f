import CraveyKit
import Foundation

/// `cravey record`'s meter, in the home screen's shape: one state value (the markers made, where
/// the recording stands, the meter's history, whether it is paused), the events that change it
/// (a key, what the recorder reports), the effects it asks for (pause or go on, say a line, draw
/// the meter's line in place) and its frame, the meter's line, a function of the state.
/// ``LevelMeterView`` is the loop around it. Its keys are the key table's (`.recorder`).
struct RecorderState: Sendable {
    /// The length asked for (`--seconds`), said when it starts.
    let seconds: Double?
    /// A video's options, for its summary line.
    let video: RecordingOptions?
    /// Whether space pauses (stdin is the terminal), for the first line.
    let spaceToPause: Bool
    /// Whether the meter is drawn again in place (a terminal on stderr that does more than print
    /// lines: not TERM=dumb).
    let live: Bool
    /// The terminal's width, for the meter's line.
    var columns: Int
    /// The markers made while recording (`m`), and the label being typed.
    private(set) var markers = MarkerKeys([])
    /// Where the recording stands, in seconds, as its latest level said: where `m` marks.
    private(set) var elapsed = 0.0
    private var meter: MeterLine
    /// The latest level, which the meter's line shows; nil before the first.
    private(set) var latest: AudioLevel?
    /// When the meter was last drawn (the recording's seconds).
    private var lastDraw = -1.0

    /// What changes the meter.
    enum Event: Sendable {
        case key(Key)
        case recording(RecordingEvent)
    }

    /// What the meter asks for.
    enum Effect: Sendable, Equatable {
        /// Pause the recording, or go on.
        case togglePause
        /// Say this line; with `clearing`, the meter's line cleared first when it is drawn in place.
        case say(String, clearing: Bool = true)
        /// Draw this meter's line in place.
        case draw(String)
    }

    init(seconds: Double?, video: RecordingOptions?, spaceToPause: Bool, live: Bool, colour: Bool, columns: Int) {
        (self.seconds, self.video, self.spaceToPause, self.live, self.columns) = (seconds, video, spaceToPause, live, columns)
        meter = MeterLine(colour: colour)
    }

    /// The next state after `event`, and the effects to carry out.
    mutating func apply(_ event: Event) -> [Effect] {
        switch event {
        case .key(let key):
            let action = KeyTable.action(for: key, in: .recorder)
            return markers.handle(key, action, at: elapsed) == .notMine && action == .pauseRecording ? [.togglePause] : []
        case .recording(let event):
            return record(event)
        }
    }

    /// What the recorder reported: the meter drawn at least 10 times a second, and a line for
    /// its start, a silent input, an early end, a pause, a resume and a video's frames.
    private mutating func record(_ event: RecordingEvent) -> [Effect] {
        switch event {
        case .started(let source, _):
            let limit = seconds.map { " for \(Format.duration($0))" } ?? ""
            let keys = spaceToPause ? KeyTable.labels(.recorder).joined(separator: "; ") + "; Ctrl-C stops and saves." : "Press Ctrl-C to stop and save."
            return [.say("Recording from \(source)\(limit). \(keys)", clearing: false)]
        case .silenceWarning(let source):
            return [.say("cravey: warning: the input from '\(source)' has been silent for 2 seconds. The microphone may be muted or the wrong source; see `cravey devices` and --device.")]
        case .level(let level):
            latest = level
            elapsed = level.elapsed
            guard live else { return [] }
            meter.add(level)
            // Every block (40 ms) past 0.1 s since the last.
            guard !meter.paused, level.elapsed - lastDraw >= 0.099 else { return [] }
            lastDraw = level.elapsed
            return frame.map { [.draw($0)] } ?? []
        case .frameRate(let rate):
            meter.frameRate = rate
            return []
        case .interrupted(let reason):
            return [.say("cravey: recording ended early: \(reason)")]
        case .paused(let elapsed), .resumed(let elapsed):
            let paused = if case .paused = event { true } else { false }
            meter.paused = paused
            let resume = spaceToPause ? "space or " : ""
            let said: Effect = .say(paused ? "Paused at \(Format.duration(elapsed)); \(resume)SIGUSR1 (kill -USR1 \(getpid())) resumes."
                                           : "Resumed at \(Format.duration(elapsed)).")
            // The meter stays, saying paused, its clock stopped where the recording stands.
            guard live, paused, latest != nil else { return [said] }
            latest?.elapsed = elapsed
            return [said] + (frame.map { [.draw($0)] } ?? [])
        case .videoFrames(let written, let dropped, let repeated):
            guard let video else { return [] }
            return [.say("Video: \(written) frames of \(video.width)x\(video.height) at \(video.frameRate) fps from \(video.camera.map { "\($0)" } ?? "") (\(dropped) dropped, \(repeated) repeated).")]
        }
    }

    /// The meter's line for the latest level, and after it the markers made: how many, or the
    /// label being typed. Nil before the first level.
    var frame: String? {
        guard let latest else { return nil }
        let said = markers.prompt.map { " · " + $0 } ?? (markers.markers.count > 0 ? " · \(ProgressLine.markerMark) \(markers.markers.count)" : "")
        return meter.line(latest, width: max(columns - TerminalScreen.width(of: said), 1)) + said
    }
}
