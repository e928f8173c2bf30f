import CraveyKit

/// The look back at the clip just saved, `cravey record`'s and the home screen's alike: one state
/// value (the clip as it now stands, its waveform, the part to keep as set so far, where the
/// play back is or last stopped), the events that change it (a key, a play back under way or
/// ended, a proposal of the part to keep, the title its words make, the clip changed by an edit,
/// a cut or a clean-up), the effects it asks for (say some lines, play back, hear an end of the
/// part kept, ask for a word, ask and cut, clean the noise, ask and discard, keep), and its
/// frame: the lines it prints, a function of the state. Two shells carry its effects out and
/// draw it: ``Preview`` prints its lines (`cravey record`), ``HomeLookBack`` draws it in the
/// home screen's frame. Its keys are the key table's (`.lookBack`, `.shaping`).
struct LookBackState: Sendable {
    /// The clip as it now stands.
    private(set) var recording: Recording
    /// Its waveform, nil when it cannot be drawn.
    private(set) var waveform: Waveform?
    /// The title the first words said make, for a clip given none (its title the automatic
    /// "Recording <date>"): Enter at `t` takes it. The home screen hears the words after the
    /// look back opens, and is told it then (``Event/titleProposed(_:)``).
    private(set) var proposedTitle: String?
    /// The part to keep, as set so far (nil: the clip's start, its end); `x` cuts to it.
    private(set) var cut: (start: Double?, end: Double?) = (nil, nil)
    /// Where the play back is, or last stopped: what `i` and `o` take.
    private(set) var position = 0.0
    /// The waveform's width on the terminal.
    var width: Int

    /// What changes the look back.
    enum Event: Sendable {
        case key(Key)
        /// A play back ended where it stopped (0 at the end; nil: it failed), with the starts
        /// (true) and ends (false) of the part to keep that `i` and `o` set while it played.
        case playedBack(at: Double?, marks: [(start: Bool, at: Double)])
        /// The play back is at this point (the home screen plays it on its player line, where
        /// `i` and `o` take where it is).
        case playing(at: Double)
        /// The part to keep proposed from the waveform (nil: no sound above its noise).
        case proposed(TrimProposal?)
        /// The clip's first words, heard, make this title.
        case titleProposed(String)
        /// A word of the clip changed.
        case edited(Recording)
        /// The clip cut to the part kept (`trimmed`) or its noise cleaned, with its new waveform.
        case shaped(Recording, waveform: Waveform?, trimmed: Bool)
    }

    /// The lines the look back prints (``lines(_:)``).
    enum Part: Sendable, Equatable {
        /// The clip's title and duration, a proposed title, its waveform, the keys.
        case header
        /// The waveform with what would be cut drawn as dots, and the part kept in words.
        case cut
        /// The keys lines.
        case keys
    }

    /// What the look back asks for.
    enum Effect: Sendable, Equatable {
        case show(Part)
        case say(String)
        /// Play the clip back, not counted.
        case playBack
        /// Hear this stretch, the first (or last) 3 s of the part kept.
        case hear(from: Double, to: Double, first: Bool)
        /// Ask for a word (title, notes or purpose) and change it; `proposed`: what Enter alone takes.
        case ask(LookBackChoice, current: String, proposed: String?)
        /// Propose the part to keep from the waveform.
        case proposeCut
        /// Ask, then cut the clip to this part.
        case cutTo(start: Double, end: Double)
        /// Clean the noise, compared before it is kept.
        case cleanNoise
        /// Ask, then discard the clip; the look back ends once it is gone.
        case discard
        /// Keep the clip as it stands: the look back ends.
        case keep
    }

    init(recording: Recording, waveform: Waveform?, proposedTitle: String?, width: Int) {
        (self.recording, self.waveform, self.proposedTitle, self.width) = (recording, waveform, proposedTitle, width)
    }

    /// Whether the clip has the automatic title "Recording <date>", none given.
    var untitled: Bool {
        recording.title == RecordingMetadata.automaticTitle(for: recording.createdAt)
    }

    /// The next state after `event`, and the effects to carry out, in order.
    mutating func apply(_ event: Event) -> [Effect] {
        switch event {
        case .key(let key):
            let effects = press(key)
            // After what a key did, the keys again; none for a key that does nothing.
            return effects.isEmpty ? [] : effects + [.show(.keys)]
        case .playedBack(let stopped, let marks):
            position = stopped ?? position
            for mark in marks { set(start: mark.start, at: mark.at) }
            return marks.isEmpty ? [] : [.show(.cut)]
        case .playing(let at):
            position = at
            return []
        case .proposed(let proposal?):
            cut = (proposal.start, proposal.end)
            return [.say(String(format: "Proposed from the waveform: sound above %.0f dBFS (12 dB over its noise floor, at least -70, at most halfway to its loudest peak), 150 ms kept on each side.",
                                proposal.threshold)), .show(.cut)]
        case .proposed(nil):
            return [.say("No sound above the clip's own noise: nothing to propose.")]
        case .titleProposed(let title):
            proposedTitle = title
            return []
        case .edited(let changed):
            recording = changed
            return []
        case .shaped(let changed, let waveform, let trimmed):
            let before = recording.duration
            (recording, self.waveform, cut) = (changed, waveform, (nil, nil))
            guard trimmed else { return [.show(.header)] }
            position = 0
            return [.say("Trimmed \"\(Format.visible(changed.title))\": \(ClipTime.text(before)) -> \(ClipTime.text(changed.duration))."), .show(.header)]
        }
    }

    /// What `key` does in a look back: a choice (`.lookBack`) or a way to shape the clip
    /// (`.shaping`), as the key table says; nil for a key that is neither.
    static func action(for key: Key) -> KeyAction? {
        KeyTable.action(for: key, in: .lookBack) ?? KeyTable.action(for: key, in: .shaping)
    }

    /// The question a cut of `recording` to `start`-`end` is asked with: with its title, or
    /// (where its title shows above, as on the home screen) with its length.
    static func cutQuestion(_ recording: Recording, start: Double, end: Double, titled: Bool) -> String {
        let span = "\(ClipTime.text(start))-\(ClipTime.text(end))"
        let cut = titled ? "\"\(Format.visible(recording.title))\" to \(span)" : "to \(span) of \(ClipTime.text(recording.duration))"
        return "Cut \(cut)? The cut parts cannot be recovered. [y/N]"
    }

    /// Whether a part to keep is set (`i`, `o` or `a`): what the home screen draws then.
    var cutSet: Bool { cut.start != nil || cut.end != nil }

    /// What a key asks for, as the key table's look back and shaping keys say.
    private mutating func press(_ key: Key) -> [Effect] {
        switch Self.action(for: key) {
        case .lookBack(.keep)?: return [.say("Kept \"\(Format.visible(recording.title))\"."), .keep]
        case .lookBack(.play)?: return [.playBack]
        case .lookBack(.title)?: return [.ask(.title, current: recording.title, proposed: untitled ? proposedTitle : nil)]
        case .lookBack(.notes)?: return [.ask(.notes, current: recording.notes ?? "", proposed: nil)]
        case .lookBack(.purpose)?: return [.ask(.purpose, current: recording.purpose?.rawValue ?? "", proposed: nil)]
        case .lookBack(.discard)?: return [.discard]
        case .setCut(let start)?:
            set(start: start, at: position)
            return [.show(.cut)]
        case .proposeCut?: return [.proposeCut]
        case .hearEnd(let first)?:
            let (start, end) = keptSpan
            guard end > start else { return [.say("Set the start before the end first.")] }
            return [.hear(from: first ? start : max(end - 3, start), to: first ? min(start + 3, end) : end, first: first)]
        case .cutNow?:
            guard cut.start != nil || cut.end != nil else {
                return [.say("Nothing set to cut: set the start and the end with i and o while it plays, or a.")]
            }
            return [.cutTo(start: keptSpan.start, end: keptSpan.end)]
        case .cleanNoise?: return [.cleanNoise]
        default: return []
        }
    }

    /// Sets the start or the end of the part to keep at `seconds`, within the clip.
    private mutating func set(start: Bool, at seconds: Double) {
        let at = min(max(seconds, 0), recording.duration)
        if start { cut.start = at } else { cut.end = at }
    }

    /// The part kept as now set: from the start mark (or 0) to the end mark (or the end).
    var keptSpan: (start: Double, end: Double) {
        (cut.start ?? 0, cut.end ?? recording.duration)
    }

    /// The lines of `part`, as the state now stands.
    func lines(_ part: Part) -> [String] {
        switch part {
        case .keys:
            return [KeyTable.line(.lookBack), KeyTable.line(.shaping)]
        case .header:
            var lines = ["\"\(Format.visible(recording.title))\" · \(Format.duration(recording.duration))"]
            if let proposedTitle, untitled {
                lines.append("Its first words make a title: \"\(Format.visible(proposedTitle))\" (t, then Enter, takes it).")
            }
            if let waveform { lines.append(waveform.sparkline(width: width)) }
            return lines + self.lines(.keys)
        case .cut:
            let (start, end) = keptSpan
            guard end > start else { return ["The end (\(ClipTime.text(end))) is before the start (\(ClipTime.text(start))): set them again."] }
            var lines: [String] = []
            if let waveform, recording.duration > 0 {
                let line = Array(waveform.sparkline(width: width))
                let first = Int(start / recording.duration * Double(line.count))
                let last = Int((end / recording.duration * Double(line.count)).rounded(.up))
                lines.append(String(line.enumerated().map { $0.offset >= first && $0.offset < last ? $0.element : "·" }))
            }
            lines.append("Keep \(ClipTime.text(start))-\(ClipTime.text(end)) of \(ClipTime.text(recording.duration)) (x cuts, [ ] hear its ends).")
            return lines
        }
    }
}
