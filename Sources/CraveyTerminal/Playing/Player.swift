import CraveyKit
import Foundation

/// Plays a recording for `play` and `quickplay N`: the keys and progress bar on a terminal, JSON
/// lines with `--json`, a clean stop on SIGINT/SIGTERM, and the play counted at the end.
package struct Player {
    let library: RecordingLibrary
    let flags: PlayerFlags
    /// The loudness it plays at, and whether the desktop is shown the title.
    let settings: AppSettings
    let json: Bool

    package init(library: RecordingLibrary, flags: PlayerFlags, settings: AppSettings, json: Bool) {
        (self.library, self.flags, self.settings, self.json) = (library, flags, settings, json)
    }

    package func play(_ recording: Recording) async throws {
        let title = Format.visible(recording.title)
        let (manager, windowShown) = try await start(recording, title: title)
        let signals = StopOnSignals { manager.stop() }
        defer { signals.cancel() }
        // `kill -USR1 PID` pauses and resumes, as space does (and as it does a recording).
        let pauses = OnSignals([SIGUSR1]) { manager.perform(.togglePause) }
        defer { pauses.cancel() }
        // The desktop's media controls and keys drive the same manager; without a terminal a
        // notification says what plays and how to stop it.
        let desktop = await PlayController(library: library, settings: settings).desktop(for: manager, playing: recording, notifying: !Terminal.isAttached)
        // Keys need the terminal on stdin, and stderr one too for what they do. The line is drawn
        // again in place, so not on a terminal that only prints lines (TERM=dumb), which gets no
        // mouse reporting either; NO_COLOR takes its colour, not the line. A click on the bar
        // goes to that point of the clip.
        let onTerminal = !json && Terminal.isTerminal(0) && Terminal.isTerminal(2)
        // The stored waveform is read for a terminal's line, once the sound has started, and for
        // the quiet stretches to skip (with --skip-silence, or for z on a terminal).
        let waveform = onTerminal || flags.skipSilence ? library.analysis.storedWaveform(of: recording) : nil
        let line = onTerminal && Terminal.canRedraw
            ? ProgressLine(duration: manager.duration, waveform: waveform, colour: Terminal.isInteractive)
            : nil
        // The words said, on the line as they are said, when the clip has a transcript.
        let spoken = onTerminal ? library.transcripts.transcript(of: recording).map(SpokenLine.init) : nil
        // Measured as the terminal draws them (a wide character takes two columns): the C
        // library's widths in UTF-8, as the home screen sets them.
        if spoken != nil { setlocale(LC_CTYPE, "C.UTF-8") }
        if flags.skipSilence, waveform == nil, !json {
            Terminal.diagnostic("cravey: \"\(title)\" has no stored waveform yet, so no quiet stretch is known to skip (this play makes it).")
        }
        // m marks the moment (its label typed after), . and , go to the next and previous marker.
        let state = Locked(PlayerState(view: line.map { .bar($0) } ?? (onTerminal ? .lines : .none), markers: recording.markers,
                                       silence: SilenceSkip(spans: waveform?.quietSpans() ?? [], isOn: flags.skipSilence),
                                       spoken: spoken, columns: Terminal.columns))
        let work = Work(manager: manager, state: state, recording: recording, library: library)
        // The line last drawn, to draw again when the terminal is taken back after Ctrl-Z and `fg`.
        let drawn = Locked("")
        let keys = onTerminal ? KeyReader(mouse: line != nil, redraw: { Terminal.diagnostic(drawn.withLock { $0 }, terminator: "") }, handling: { key in
            work.run(state.withLock { $0.apply(.key(key)) })
        }) : nil
        // Restored on every way out: the end, a stop, a signal (a clean stop), a failure.
        defer { keys?.restore() }
        if line != nil {
            Terminal.diagnostic("▶ \(title)   \(PlayerState.keys(window: windowShown, bar: true))")
        } else if onTerminal {
            Terminal.diagnostic("Playing \"\(title)\" (\(Format.duration(manager.duration))): \(PlayerState.keys(window: windowShown, bar: false)).")
        } else if !json {
            Terminal.diagnostic("Playing \"\(title)\" (\(Format.duration(manager.duration))). Ctrl-C stops.")
        }
        var view = EventView(work: work, drawn: drawn, json: json)
        let ended = await PlayController.follow(manager, desktop: desktop) { view.show($0) }
        if case .bar = state.withLock({ $0.view }) { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
        let outcome = try ended.get()
        if let failure = view.failure { throw failure }
        keys?.restore()
        if windowShown, let lost = manager.videoProblem {
            Terminal.diagnostic("cravey: \(Messages.text(for: lost)) The play stopped there, as closing the window stops it.")
        }
        let pictures = windowShown ? (outcome.picturesShown, outcome.picturesDropped) : nil
        let skipped = state.withLock { $0.silence.skipped }
        try report(completed: outcome.completed, secondsListened: outcome.secondsListened, position: outcome.position,
                   recording: outcome.recording ?? recording, counted: outcome.counted, title: title, pictures: pictures,
                   silenceSkipped: skipped > 0 || flags.skipSilence ? skipped : nil)
    }

    /// Starts playing `recording` (shown as `title`) as the flags say, a video in a window when
    /// there is a display; the playback, and whether its window shows.
    private func start(_ recording: Recording, title: String) async throws -> (PlaybackManager, windowShown: Bool) {
        if let from = flags.from, from.seconds > recording.duration {
            throw CraveyError(.invalidInput, "--from \(ClipTime.text(from.seconds)) is past the end of \"\(title)\", which is \(ClipTime.text(recording.duration)) long; give a time within it (`cravey info \(recording.id.description.prefix(8))` shows its length).")
        }
        let request = PlayController.Request(start: flags.from?.seconds ?? 0, speed: flags.speed, counted: !flags.noCount,
                                             sink: flags.device, normalize: !flags.noNormalize, video: !flags.noVideo)
        let window = PlayController.showsWindow(recording, request)
        if recording.type == .video && !window {
            Terminal.diagnostic("\"\(title)\" is a video: playing its audio track (`cravey play --open` shows the picture in the desktop's player).")
        }
        let manager = try await PlayController(library: library, settings: settings).start(recording, request)
        if let problem = manager.videoProblem {
            Terminal.diagnostic("cravey: \(Messages.text(for: problem)) Playing its sound only.")
        }
        return (manager, window && manager.videoProblem == nil)
    }

    /// Stores a marker `m` made (or its label), on the key reader's thread; what went wrong, in
    /// a few words for the line, or nil.
    static func store(_ marker: ClipMarker, of recording: Recording, in library: RecordingLibrary) -> String? {
        do {
            try library.markers.add(to: recording.id, at: marker.seconds, label: marker.label)
            return nil
        } catch {
            return "marker not kept: \((error as? CraveyError)?.message ?? "\(error)")"
        }
    }

    /// `--open`: hands the file to the desktop's default player and counts the play.
    package func openInDesktop(_ recording: Recording) async throws {
        let url = try library.fileURL(of: recording)
        guard PlayController.hasDisplay else {
            throw CraveyError(.unavailable, "There is no desktop to open \"\(recording.title)\" in (neither DISPLAY nor WAYLAND_DISPLAY is set). Play its audio here with `cravey play \(recording.id.description.prefix(8))`.")
        }
        let opener: ChildProcess
        do {
            opener = try ChildProcess("xdg-open", [url.path], searchingPath: true)
        } catch {
            throw CraveyError(.unavailable, "Cannot run xdg-open (\(error)). Install xdg-utils, or play the clip here with `cravey play`.")
        }
        let ended = await opener.exit()
        guard ended == .exit(0) else {
            throw CraveyError(.unavailable, "xdg-open could not open \(url.path) (\(ended)): the desktop has no player for it. Play it here with `cravey play`.")
        }
        Terminal.diagnostic("Opened \"\(Format.visible(recording.title))\" in the desktop's player.")
        // Played elsewhere for a time nobody knows: 0 seconds, not completed.
        let counted = flags.noCount ? nil : try library.countPlay(of: recording)
        try report(completed: false, secondsListened: 0, position: 0, recording: counted ?? recording, counted: counted != nil,
                   title: Format.visible(recording.title))
    }

    /// What the player's effects act on: the playback, the player's state (told when a marker
    /// was stored) and the clip's markers through the door.
    struct Work: Sendable {
        let manager: PlaybackManager
        let state: Locked<PlayerState>
        let recording: Recording
        let library: RecordingLibrary

        /// Carries out `effects`, on the thread that asked (the key reader's, the events' task):
        /// a marker is stored through the door there, as the key reader's thread is no pool thread.
        func run(_ effects: [PlayerState.Effect]) {
            for effect in effects {
                switch effect {
                case .perform(let command): manager.perform(command)
                case .seek(let seconds): _ = manager.seek(to: seconds)
                case .say(let text): Terminal.diagnostic(text)
                case .store(let marker):
                    let problem = Player.store(marker, of: recording, in: library)
                    run(state.withLock { $0.apply(.stored(problem: problem)) })
                }
            }
        }
    }

    /// Shows each event of the play: the player's frame on a terminal (the line last drawn kept
    /// in `drawn`), its lines on a terminal that only prints lines, JSON lines with `--json`.
    struct EventView {
        let work: Work
        let drawn: Locked<String>
        let json: Bool
        let encoder = JSONEncoder()
        var lastLine = ""
        /// The error a write to stdout ended with (the playback is stopped then, and nothing
        /// more is written).
        private(set) var failure: (any Error)?

        init(work: Work, drawn: Locked<String>, json: Bool) {
            (self.work, self.drawn, self.json) = (work, drawn, json)
            encoder.outputFormatting = [.sortedKeys]
        }

        mutating func show(_ event: PlaybackEvent) {
            let columns = Terminal.columns
            let (effects, line) = work.state.withLock { state in
                state.columns = columns
                return (state.apply(.progress(event)), state.frame)
            }
            work.run(effects)
            if json {
                guard failure == nil else { return }
                do {
                    try Terminal.output(String(decoding: try encoder.encode(event), as: UTF8.self))
                } catch {
                    work.manager.stop()
                    failure = error
                }
            } else if let line {
                if line != lastLine {
                    Terminal.diagnostic(line, terminator: "")
                    drawn.withLock { $0 = line }
                }
                lastLine = line
            }
        }
    }

    /// The play's last line; `pictures` (shown, dropped) when a video showed in a window.
    private func report(completed: Bool, secondsListened: Double, position: Double, recording: Recording, counted: Bool,
                        title: String, pictures: (shown: Int, dropped: Int)? = nil, silenceSkipped: Double? = nil) throws {
        if json {
            let play = PlayReport(id: recording.id.description, counted: counted, completed: completed,
                                  secondsListened: secondsListened, position: position, playCount: recording.playCount,
                                  picturesShown: pictures?.shown, picturesDropped: pictures?.dropped, silenceSkipped: silenceSkipped)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try Terminal.output(String(decoding: try encoder.encode(["play": play]), as: UTF8.self))
            return
        }
        let how = completed ? "to the end" : "stopped at \(Format.duration(position))"
        let plays = recording.playCount
        let counts = counted ? "counted: \(plays) play\(plays == 1 ? "" : "s")" : "not counted"
        let shown = pictures.map { "; \($0.shown) pictures shown, \($0.dropped) dropped" } ?? ""
        let skipped = silenceSkipped.map { String(format: "; %.1f s of silence skipped", $0) } ?? ""
        Terminal.diagnostic("Played \"\(title)\" \(how) (\(counts)\(shown)\(skipped)).")
    }

    /// The play as `--json` prints it on its last line.
    struct PlayReport: Encodable {
        var id: String
        var counted: Bool
        var completed: Bool
        var secondsListened: Double
        var position: Double
        var playCount: Int
        /// A video's pictures in its window; absent without a window.
        var picturesShown: Int?
        var picturesDropped: Int?
        /// Seconds of quiet skipped; absent unless silence was skipped (`--skip-silence`, z).
        var silenceSkipped: Double?
    }
}

/// The player's line on a terminal, "▶  0:03 [▁▂▅▇█▆▃▁▁▂▅▇▆▃▁] 0:12", redrawn in place: the
/// position, the clip's waveform (its stored peaks, 30 columns; a plain bar for a clip without
/// one yet), its markers as "◆", with the played part marked (in colour, or with a "│" where it stands under
/// NO_COLOR), and the length; "❚❚" while paused. A click on the bar goes to that point.
struct ProgressLine: Sendable {
    static let width = 30
    /// The clip's waveform, a bar a column; nil without a stored one.
    let bars: [Character]?
    let colour: Bool
    /// The clip's length as shown; the position is padded to its width, so the bar stays put.
    let total: String

    init(duration: Double, waveform: Waveform?, colour: Bool) {
        // A stored waveform without peaks (of a clip too short for one, or a file made elsewhere)
        // draws nothing: the plain bar stands in for it.
        bars = waveform.map { Array($0.sparkline(width: Self.width)) }.flatMap { $0.count == Self.width ? $0 : nil }
        self.colour = colour
        total = Format.duration(duration)
    }

    /// The column (1-based) of the bar's first character: after the mark (2 columns), a space,
    /// the position and " [".
    var barStart: Int { 2 + 1 + total.count + 2 + 1 }

    /// The point of the clip (0 its start, 1 its end) a click at `column` goes to: each column of
    /// the bar is a thirtieth of the clip, from its left edge; nil outside the bar.
    func fraction(atColumn column: Int) -> Double? {
        let offset = column - barStart
        guard (0..<Self.width).contains(offset) else { return nil }
        return Double(offset) / Double(Self.width)
    }

    func draw(_ event: PlaybackEvent, markers: [ClipMarker] = []) -> String {
        let (plain, played) = self.bars(event)
        var bars = plain
        for column in Self.columns(of: markers, duration: event.duration) { bars[column] = Self.markerMark }
        let bar: String
        if self.bars != nil {
            if colour {
                bar = "\u{1B}[36m\(String(bars[..<played]))\u{1B}[0m\u{1B}[2m\(String(bars[played...]))\u{1B}[0m"
            } else {
                bar = played < Self.width ? String(bars[..<played]) + "│" + String(bars[(played + 1)...]) : String(bars)
            }
        } else {
            bar = String(bars)
        }
        let speed = event.speed == 1 ? "" : String(format: " %.1fx", event.speed)
        return "\r\u{1B}[2K\(mark(event)) \(position(event)) [\(bar)] \(total)\(speed)"
    }

    /// The columns ``draw(_:markers:)`` takes for `event`: the mark, the position, the bar, the
    /// length and the speed.
    func columns(_ event: PlaybackEvent) -> Int {
        barStart - 1 + Self.width + 2 + total.count + (event.speed == 1 ? 0 : String(format: " %.1fx", event.speed).count)
    }

    /// What stands for a marker in the bar.
    static let markerMark: Character = "◆"

    /// The columns of a bar ``width`` wide where `markers` of a clip `duration` seconds long
    /// stand: each in the column of the thirtieth of the clip it is in (its end in the last).
    static func columns(of markers: [ClipMarker], duration: Double, width: Int = width) -> [Int] {
        guard duration > 0, width > 0 else { return [] }
        return markers.map { min(max(Int($0.seconds / duration * Double(width)), 0), width - 1) }
    }

    /// The mark: "▶ " while playing, "❚❚" while paused.
    func mark(_ event: PlaybackEvent) -> String {
        event.state == .paused ? "❚❚" : "▶ "
    }

    /// The position, padded to the length's width so the bar stays put.
    func position(_ event: PlaybackEvent) -> String {
        let position = Format.duration(event.position)
        return String(repeating: " ", count: max(total.count - position.count, 0)) + position
    }

    /// The bar's ``width`` characters (the waveform, or "█" played and "░" to come for a clip
    /// without one) and how many of them are played.
    func bars(_ event: PlaybackEvent) -> (bars: [Character], played: Int) {
        let fraction = event.duration > 0 ? min(max(event.position / event.duration, 0), 1) : 1
        let played = Int((fraction * Double(Self.width)).rounded())
        return (bars ?? Array(String(repeating: "█", count: played) + String(repeating: "░", count: Self.width - played)), played)
    }
}
