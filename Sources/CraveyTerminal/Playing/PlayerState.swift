import CraveyKit

/// `cravey play`'s player on a terminal, in the home screen's shape: one state value, the events
/// that change it (a key, the play's progress, a marker stored), the effects it asks for (a
/// command to the playback, a seek, a marker to store, a line to say) and its frame, the line
/// drawn in place, a function of the state. ``Player`` is the loop around it: the key reader's
/// keys and the playback's events in, the effects carried out. Its keys are the key table's
/// (``KeyTable``, `.player`).
struct PlayerState: Sendable {
    /// How the play shows on the terminal.
    enum View: Sendable {
        /// The bar's line, drawn again in place.
        case bar(ProgressLine)
        /// A line at each pause and resume and at each sentence said: a terminal that only
        /// prints lines (TERM=dumb).
        case lines
        /// Nothing: `--json`, or no terminal.
        case none
    }

    /// What changes the player.
    enum Event: Sendable {
        case key(Key)
        /// The play's progress, as the playback reports it.
        case progress(PlaybackEvent)
        /// A marker `m` made was stored, or not (what went wrong, in a few words).
        case stored(problem: String?)
    }

    /// What the player asks for.
    enum Effect: Sendable, Equatable {
        /// A command to the playback.
        case perform(PlayerCommand)
        /// Go to this point of the clip, in seconds.
        case seek(Double)
        /// Store this marker (or its label).
        case store(ClipMarker)
        /// Say this line (a terminal that only prints lines).
        case say(String)
    }

    let view: View
    /// The words said, when the clip has a transcript.
    let spoken: SpokenLine?
    /// The terminal's width, for the words said after the bar.
    var columns: Int
    /// The clip's markers, and the label being typed.
    private(set) var markers: MarkerKeys
    /// The quiet stretches to skip, and whether they are skipped now.
    private(set) var silence: SilenceSkip
    /// The play's latest progress; nil before the first.
    private(set) var event: PlaybackEvent?
    /// The sentence said last, on a terminal that only prints lines.
    private var lastSentence: Int?

    init(view: View, markers: [ClipMarker], silence: SilenceSkip, spoken: SpokenLine?, columns: Int) {
        (self.view, self.markers, self.silence, self.spoken, self.columns) = (view, MarkerKeys(markers), silence, spoken, columns)
    }

    /// The next state after `event`, and the effects to carry out.
    mutating func apply(_ event: Event) -> [Effect] {
        switch event {
        case .key(let key): return press(key)
        case .progress(let progress): return advance(to: progress)
        case .stored(let problem):
            markers.problem = problem
            return []
        }
    }

    /// A key: the label's while one is typed, else what the key table's player keys say.
    private mutating func press(_ key: Key) -> [Effect] {
        let action = KeyTable.action(for: key, in: .player)
        switch markers.handle(key, action, at: event?.position ?? 0) {
        case .store(let marker): return [.store(marker)]
        case .seek(let seconds): return [.seek(seconds)]
        case .nothing: return []
        case .notMine: break
        }
        switch action {
        case .clickBar?:
            // The bar's columns are counted from 1, a click's from 0.
            guard case .bar(let line) = view, case .click(_, let column) = key, let fraction = line.fraction(atColumn: column + 1) else { return [] }
            return [.perform(.seek(fraction: fraction))]
        case .skipSilence?:
            silence.isOn.toggle()
            return []
        case .player(let command)?:
            return [.perform(command)]
        default:
            return []
        }
    }

    /// The play's progress: a quiet stretch skipped (when on), and on a terminal that only prints
    /// lines, a line at a pause or a resume and at each sentence that begins.
    private mutating func advance(to progress: PlaybackEvent) -> [Effect] {
        let previous = event
        event = progress
        var effects: [Effect] = []
        if progress.state == .playing, let target = silence.target(from: progress.position) { effects.append(.seek(target)) }
        guard case .lines = view else { return effects }
        // A play starts playing: a pause before its first event (space typed at once) is said too.
        if progress.state != previous?.state ?? .playing, [.paused, .playing].contains(progress.state) {
            effects.append(.say(progress.state == .paused ? "Paused at \(Format.duration(progress.position))."
                                                          : "Playing from \(Format.duration(progress.position))."))
        }
        if let spoken, let sentence = spoken.at(progress.position)?.sentence, sentence != lastSentence {
            effects.append(.say(spoken.text(at: progress.position, width: .max, marking: .none)))
            lastSentence = sentence
        }
        return effects
    }

    /// The bar's line as it stands: the bar with the markers, then whether silence is skipped and
    /// how much, the label being typed (or what went wrong storing a marker), and the words said
    /// (the word said now marked) in the columns left, never while a label is typed. Nil when no
    /// bar is drawn, or before the first progress.
    var frame: String? {
        guard case .bar(let progress) = view, let event else { return nil }
        let said = markers.prompt ?? markers.problem
        let after = (silence.isOn || silence.skipped > 0
            ? " · \(silence.isOn ? "skipping silence" : "silence kept"), \(Format.duration(silence.skipped)) saved" : "")
            + (said.map { " · " + $0 } ?? "")
        var line = progress.draw(event, markers: markers.markers) + after
        if let spoken, markers.prompt == nil {
            let room = columns - 1 - progress.columns(event) - TerminalScreen.width(of: after) - 3
            let words = spoken.text(at: event.position, width: room, marking: progress.colour ? .reverse : .brackets)
            if !words.isEmpty { line += " · " + words }
        }
        return line
    }

    /// The keys line shown before the play: the table's player keys that do something here
    /// (full screen with a window, a click with a bar).
    static func keys(window: Bool, bar: Bool) -> String {
        KeyTable.line(.player) { action in
            (action != .player(.toggleFullScreen) || window) && (action != .clickBar || bar)
        }
    }
}
