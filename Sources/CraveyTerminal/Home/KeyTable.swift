import CraveyKit

/// What a key asks of a screen (``KeyTable``): the home screen, `cravey play`'s player and a video's
/// window, `cravey record`'s meter and look back, the clean-up's listening.
enum KeyAction: Equatable {
    // The list and the selected clip.
    case play, quickPlay, record(video: Bool), edit, delete, cut, filter, clearFilter, sort, quit
    case move(rows: Int), movePage(forward: Bool), first, last, scroll(rows: Int), deleteAll, help, redraw
    /// A play's key, as `cravey play` has it.
    case player(PlayerCommand)
    /// Marks the moment playing (its label typed after); goes to the next or previous marker.
    case mark, jumpMarker(forward: Bool)
    /// A click on `cravey play`'s bar: that point of the clip.
    case clickBar
    /// Skips the quiet stretches of a play, or stops skipping them.
    case skipSilence
    // A recording under way.
    case pauseRecording, stopRecording, saveAndQuit
    /// A choice of the look back at the clip just recorded.
    case lookBack(LookBackChoice)
    /// The look back shaping the clip: the start (or end) of the part to keep at the
    /// play position, both proposed from the waveform, the first (or last) 3 s kept heard, the
    /// cut made, the noise cleaned.
    case setCut(start: Bool), proposeCut, hearEnd(first: Bool), cutNow, cleanNoise
    /// A clean-up compared: listen, keep the cleaned clip, keep it as it was, switch between them.
    case listen, keepCleaned, keepAsItWas, switchCleaned
    /// The answer yes to a question on the status line.
    case yes
    /// The reminders (`t`): shown; one added, changed, paused or resumed, removed; closed.
    case reminders, addReminder, changeReminder, pauseReminder, removeReminder, closeReminders

    /// Whether it starts work that a recording under way must end first.
    var needsRecorder: Bool {
        switch self {
        case .record, .edit, .delete, .filter, .quickPlay, .reminders: true
        default: false
        }
    }
}

/// One line of the key table: when it applies, its keys and what each does, how the status line
/// names it and what `?` says of it.
struct KeyBinding {
    /// When a binding applies; the first of these that applies and binds a key decides it.
    enum Context {
        /// A recording under way.
        case recording
        /// A clip playing.
        case playing
        /// The clip just recorded, looked back at.
        case lookBack
        /// Always: the list, Quick Play and the actions on the selected clip.
        case browsing
        /// A question on the home screen's status line: what answers yes.
        case question
        /// `cravey play`'s player line.
        case player
        /// A video's window (SDL), in any player.
        case window
        /// `cravey record`'s meter.
        case recorder
        /// The look back shaping the clip (beside ``lookBack``'s choices).
        case shaping
        /// The look back playing the clip back.
        case lookBackPlaying
        /// A clean-up's result, to keep or not (`cravey clean`, the look back's `c`).
        case cleanUp
        /// A clean-up heard, before or after.
        case cleanListening
        /// The home screen's reminders (`t`), shown over the list: their own keys and help.
        case reminders

        /// The home screen's contexts, in the order the first that applies and binds a key decides
        /// (the look back's shaping keys are its own, and shown while it is open: ``HomeLookBack``).
        static let home: [Context] = [.recording, .playing, .lookBack, .browsing]

        /// The heading of its part of the help.
        var heading: String {
            switch self {
            case .recording: "Recording:"
            case .playing: "Playing:"
            case .lookBack: "After a recording:"
            case .browsing: "The list:"
            case .question: "A question:"
            case .player: "Playing:"
            case .window: "A video's window:"
            case .recorder: "Recording:"
            case .shaping: "Shaping the clip:"
            case .lookBackPlaying: "Playing it back:"
            case .cleanUp: "The clean-up:"
            case .cleanListening: "Hearing the clean-up:"
            case .reminders: "Reminders:"
            }
        }
    }

    let context: Context
    /// The keys as a person reads them ("j ↓").
    let name: String
    let keys: [(key: Key, action: KeyAction)]
    /// What the status line says of it, with its keys ("Enter play"); nil: not shown there.
    let label: String?
    /// The other contexts whose status line shows it too.
    let alsoShown: [Context]
    /// What `?` says it does.
    let help: String

    init(_ context: Context, _ name: String, _ keys: [Key], _ action: KeyAction, label: String? = nil,
         alsoShown: [Context] = [], help: String) {
        self.init(context, name, keys.map { ($0, action) }, label: label, alsoShown: alsoShown, help: help)
    }

    init(_ context: Context, _ name: String, _ keys: [(key: Key, action: KeyAction)], label: String? = nil,
         alsoShown: [Context] = [], help: String) {
        (self.context, self.name, self.keys, self.label, self.alsoShown, self.help) = (context, name, keys, label, alsoShown, help)
    }
}

/// Every screen's keys, in one table (as cmus keeps its bindings): what a key does, the status
/// lines' keys and the home screen's `?` help are all made from it, so a new key is one line here.
enum KeyTable {
    static let bindings: [KeyBinding] = [
        KeyBinding(.recording, "space", [.character(" ")], .pauseRecording, label: "space pause", help: "pause, go on"),
        KeyBinding(.recording, "Enter s", [.enter, .character("s")], .stopRecording, label: "Enter or s stop and save", help: "stop and save"),
        KeyBinding(.recording, "q", [.character("q")], .saveAndQuit, label: "q save and quit", help: "save and quit"),
        KeyBinding(.recording, "m", [.character("m")], .mark, label: "m mark",
                   help: "mark this moment (type its label, Enter keeps it, Esc none)"),

        KeyBinding(.playing, "space", [.character(" ")], .player(.togglePause), label: "space pause", help: "pause, go on"),
        KeyBinding(.playing, "←/→", [(.left, .player(.skip(-15))), (.right, .player(.skip(15)))], label: "←/→ 15 s", help: "15 s back, on"),
        KeyBinding(.playing, "0-9", digits, label: "0-9 jump", help: "jump to 0%-90% (a click on the bar too)"),
        KeyBinding(.playing, "[ ]", speeds, label: "[ ] speed", help: "10% slower, faster (pitch kept)"),
        KeyBinding(.playing, "⌫", [.backspace], .player(.resetSpeed), label: "⌫ 1x", help: "1x"),
        KeyBinding(.playing, "Esc Q", [.escape, .character("Q")], .player(.stop), label: "Esc stop", help: "stop (counted)"),
        KeyBinding(.playing, "f", [.character("f"), .character("F")], .player(.toggleFullScreen), help: "a video full screen"),
        KeyBinding(.playing, "m", [.character("m")], .mark, label: "m mark",
                   help: "mark this moment (type its label, Enter keeps it, Esc none)"),
        KeyBinding(.playing, ", .", [(.character(","), .jumpMarker(forward: false)), (.character("."), .jumpMarker(forward: true))],
                   label: ", . marks", help: "the previous, next marker"),


        // The look back's choices, `cravey record`'s (``Preview``) and the home screen's (``HomeLookBack``).
        KeyBinding(.lookBack, "p", [.character("p")], .lookBack(.play), label: "p play", help: "play it (not counted)"),
        KeyBinding(.lookBack, "t", [.character("t")], .lookBack(.title), label: "t title", help: "title"),
        KeyBinding(.lookBack, "n", [.character("n")], .lookBack(.notes), label: "n notes", help: "notes"),
        KeyBinding(.lookBack, "u", [.character("u")], .lookBack(.purpose), label: "u purpose", help: "purpose"),
        KeyBinding(.lookBack, "d", [.character("d")], .lookBack(.discard), label: "d discard", help: "discard (asks first)"),
        KeyBinding(.lookBack, "Enter Esc", [.enter, .escape], .lookBack(.keep), label: "Enter keep", help: "keep"),

        KeyBinding(.browsing, "Enter", [.enter], .play, label: "Enter play", help: "play the selected clip"),
        KeyBinding(.browsing, "1 2 3", ["1", "2", "3"].map { .character($0) }, .quickPlay, label: "1-3 Quick Play", help: "play a Quick Play clip"),
        KeyBinding(.browsing, "r R", [(.character("r"), .record(video: false)), (.character("R"), .record(video: true))],
                   label: "r record", help: "record sound (R: and video)"),
        KeyBinding(.browsing, "e", [.character("e")], .edit, label: "e edit", help: "edit title, notes, purpose"),
        KeyBinding(.browsing, "d", [.character("d")], .delete, label: "d delete", help: "delete (asks first)"),
        KeyBinding(.browsing, "/", [.character("/")], .filter, label: "/ filter", help: "filter as you type (#word: a tag); Enter keeps, Esc clears"),
        KeyBinding(.browsing, "s", [.character("s")], .sort, label: "s sort", help: "order: recent, most played, title"),
        KeyBinding(.browsing, "x", [.character("x")], .cut, label: "x cut silence",
                   help: "cut the silence at the ends (asks first; cannot be undone)"),
        KeyBinding(.browsing, "t", [.character("t")], .reminders, label: "t reminders", help: "reminders"),
        KeyBinding(.browsing, "q", [.character("q")], .quit, label: "q quit", alsoShown: [.playing],
                   help: "quit (a play counted, a recording saved; Ctrl-C too)"),
        KeyBinding(.browsing, "j ↓", [.character("j"), .down], .move(rows: 1), help: "down"),
        KeyBinding(.browsing, "k ↑", [.character("k"), .up], .move(rows: -1), help: "up"),
        KeyBinding(.browsing, "PgDn PgUp", [(.pageDown, .movePage(forward: true)), (.pageUp, .movePage(forward: false))], help: "a page"),
        KeyBinding(.browsing, "g Home", [.character("g"), .home], .first, help: "the first"),
        KeyBinding(.browsing, "G End", [.character("G"), .end], .last, help: "the last"),
        KeyBinding(.browsing, "wheel", [(.wheelDown, .scroll(rows: 3)), (.wheelUp, .scroll(rows: -3))],
                   help: "scrolls; a click selects (plays in Quick Play)"),
        KeyBinding(.browsing, "Esc", [.escape], .clearFilter, help: "clear the filter"),
        KeyBinding(.browsing, "D", [.character("D")], .deleteAll, help: "every clip: cravey delete-all"),
        KeyBinding(.browsing, "?", [.character("?")], .help, help: "this help"),
        KeyBinding(.browsing, "Ctrl-L", [.control("l")], .redraw, help: "draw the screen again"),
        KeyBinding(.reminders, "a", [.character("a")], .addReminder, label: "a add", help: "add (its time, days, clip typed)"),
        KeyBinding(.reminders, "e", [.character("e")], .changeReminder, label: "e change", help: "change the selected one"),
        KeyBinding(.reminders, "p", [.character("p")], .pauseReminder, label: "p pause/resume", help: "pause it until resumed, resume it"),
        KeyBinding(.reminders, "d", [.character("d")], .removeReminder, label: "d remove", help: "remove it and its timer (asks first)"),
        KeyBinding(.reminders, "j ↓ k ↑", [(.character("j"), .move(rows: 1)), (.down, .move(rows: 1)), (.character("k"), .move(rows: -1)),
                                           (.up, .move(rows: -1))], help: "down, up"),
        KeyBinding(.reminders, "t Esc q", [.character("t"), .escape, .character("q")], .closeReminders, label: "Esc close", help: "back to the list"),
        KeyBinding(.reminders, "?", [.character("?")], .help, help: "this help"),
        KeyBinding(.question, "y", [.character("y"), .character("Y")], .yes, help: "yes; any other key: no"),
    ] + otherScreens

    /// The keys of the screens other than the home screen: `cravey play`, a video's window,
    /// `cravey record`'s meter and look back, and a clean-up's listening.
    private static let otherScreens: [KeyBinding] = [
        KeyBinding(.player, "space", [.character(" ")], .player(.togglePause), label: "space pause", help: "pause, go on"),
        KeyBinding(.player, "←/→", [(.left, .player(.skip(-15))), (.right, .player(.skip(15)))], label: "←/→ 15 s", help: "15 s back, on"),
        KeyBinding(.player, "Home End", [(.home, .player(.seek(fraction: 0))), (.end, .player(.seek(fraction: 1)))], help: "the start, the end"),
        KeyBinding(.player, "0-9", digits, label: "0-9 jump", help: "jump to 0%-90%"),
        KeyBinding(.player, "click", [.click(row: 0, column: 0)], .clickBar, label: "click the bar", help: "that point of the clip"),
        KeyBinding(.player, "[ ]", speeds, label: "[ ] speed", help: "10% slower, faster (pitch kept)"),
        KeyBinding(.player, "⌫", [.backspace], .player(.resetSpeed), help: "1x"),
        KeyBinding(.player, "z", [.character("z"), .character("Z")], .skipSilence, label: "z skip silence", help: "skip the quiet stretches, or not"),
        KeyBinding(.player, "m", [.character("m")], .mark, label: "m mark", help: "mark this moment (type its label, Enter keeps it, Esc none)"),
        KeyBinding(.player, ", .", [(.character(","), .jumpMarker(forward: false)), (.character("."), .jumpMarker(forward: true))],
                   label: ", . marks", help: "the previous, next marker"),
        KeyBinding(.player, "q Esc", [.character("q"), .character("Q"), .escape], .player(.stop), label: "q stop", help: "stop (counted)"),
        KeyBinding(.player, "f", [.character("f"), .character("F")], .player(.toggleFullScreen), label: "f full screen", help: "a video full screen"),

        KeyBinding(.window, "space", [.character(" ")], .player(.togglePause), help: "pause, go on"),
        KeyBinding(.window, "←/→", [(.left, .player(.skip(-15))), (.right, .player(.skip(15)))], help: "15 s back, on"),
        KeyBinding(.window, "Home End", [(.home, .player(.seek(fraction: 0))), (.end, .player(.seek(fraction: 1)))], help: "the start, the end"),
        KeyBinding(.window, "0-9", digits, help: "jump to 0%-90%"),
        KeyBinding(.window, "[ ]", speeds, help: "10% slower, faster (pitch kept)"),
        KeyBinding(.window, "⌫", [.backspace], .player(.resetSpeed), help: "1x"),
        KeyBinding(.window, "q Esc", [.character("q"), .character("Q"), .escape], .player(.stop), help: "stop (counted)"),
        KeyBinding(.window, "f", [.character("f"), .character("F")], .player(.toggleFullScreen), help: "full screen, or not"),

        KeyBinding(.recorder, "space", [.character(" ")], .pauseRecording, label: "Space pauses", help: "pause, go on"),
        KeyBinding(.recorder, "m", [.character("m")], .mark, label: "m marks the moment",
                   help: "mark this moment (type its label, Enter keeps it, Esc none)"),

        KeyBinding(.shaping, "i o", [(.character("i"), .setCut(start: true)), (.character("o"), .setCut(start: false))],
                   label: "i/o start/end at the play position", help: "the part kept starts, ends at the play position"),
        KeyBinding(.shaping, "a", [.character("a")], .proposeCut, label: "a auto start/end", help: "the start and end proposed from the waveform"),
        KeyBinding(.shaping, "[ ]", [(.character("["), .hearEnd(first: true)), (.character("]"), .hearEnd(first: false))],
                   label: "[ ] hear the first/last 3 s", help: "hear the first, last 3 s of the part kept"),
        KeyBinding(.shaping, "x", [.character("x")], .cutNow, label: "x cut", help: "cut to the part kept (asks first)"),
        KeyBinding(.shaping, "c", [.character("c")], .cleanNoise, label: "c clean noise", help: "clean the noise (before and after compared)"),

        KeyBinding(.lookBackPlaying, "space", [.character(" ")], .player(.togglePause), label: "space pauses", help: "pause, go on"),
        KeyBinding(.lookBackPlaying, "i o", [(.character("i"), .setCut(start: true)), (.character("o"), .setCut(start: false))],
                   label: "i and o set the start and the end here", help: "the part kept starts, ends here"),

        KeyBinding(.cleanUp, "p", [.character("p")], .listen, label: "p listen (a switches before/after)", help: "listen"),
        KeyBinding(.cleanUp, "y", [.character("y")], .keepCleaned, label: "y keep it cleaned", help: "keep the cleaned clip"),
        KeyBinding(.cleanUp, "n Enter", [.character("n"), .enter], .keepAsItWas, label: "n keep it as it was", help: "keep it as it was"),

        KeyBinding(.cleanListening, "a", [.character("a")], .switchCleaned, help: "switch between before and after, at the same moment"),
        KeyBinding(.cleanListening, "space", [.character(" ")], .player(.togglePause), help: "pause, go on"),
    ]

    /// The digits: 0 to 90% of the clip.
    private static let digits: [(key: Key, action: KeyAction)] =
        (0...9).map { (.character(Character(String($0))), .player(.seek(fraction: Double($0) / 10))) }

    /// `[` and `]`: 10% slower, faster.
    private static let speeds: [(key: Key, action: KeyAction)] =
        [(.character("["), .player(.changeSpeed(by: -0.1))), (.character("]"), .player(.changeSpeed(by: 0.1)))]

    /// What `key` does in `context`, if a binding of it has it.
    static func action(for key: Key, in context: KeyBinding.Context) -> KeyAction? {
        for binding in bindings where binding.context == context {
            if let bound = binding.keys.first(where: { $0.key.matches(key) }) { return bound.action }
        }
        return nil
    }

    /// The status line's keys in `context`, in the table's order; with `shown`, only the
    /// bindings whose first action it keeps (a key that does nothing on this screen now).
    static func labels(_ context: KeyBinding.Context, shown: (KeyAction?) -> Bool = { _ in true }) -> [String] {
        bindings.filter { ($0.context == context || $0.alsoShown.contains(context)) && shown($0.keys.first?.action) }.compactMap(\.label)
    }

    /// The keys line of a screen of `context`, its labels joined as the status lines join them.
    static func line(_ context: KeyBinding.Context, shown: (KeyAction?) -> Bool = { _ in true }) -> String {
        labels(context, shown: shown).joined(separator: " · ")
    }

    /// The command a key in a video's window gives (``PlaybackOptions/windowKeys``).
    static func windowCommand(_ key: Key) -> PlayerCommand? {
        guard case .player(let command)? = action(for: key, in: .window) else { return nil }
        return command
    }

    /// The `?` help within `width` columns: a title, then each context's keys under its heading,
    /// as many on a line as fit; then what is not a key (Ctrl-Z). With a clip just recorded
    /// looked back at, the look back's keys come first, its shaping keys with them, and the list's
    /// after (no recording can start, and it plays with the player's keys on the status line).
    /// With the reminders shown (`t`), their keys alone: no other key applies there.
    static func help(width: Int, lookingBack: Bool = false, reminders: Bool = false) -> [String] {
        var lines = ["Keys of the home screen (any key closes this)"]
        let contexts: [KeyBinding.Context] = reminders ? [.reminders] : lookingBack ? [.lookBack, .shaping, .browsing]
            : KeyBinding.Context.home.reversed()
        for context in contexts {
            var line = context.heading
            for binding in bindings where binding.context == context {
                let item = "\(binding.name) \(binding.help)"
                if TerminalScreen.width(of: line + " · " + item) > width, line != context.heading {
                    lines.append(line)
                    line = "  " + item
                } else {
                    line += line == context.heading ? " " + item : " · " + item
                }
            }
            lines.append(line)
        }
        lines.append("Ctrl-Z suspends; fg comes back.")
        return lines
    }
}
