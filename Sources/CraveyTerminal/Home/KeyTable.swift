import CraveyKit

/// What a key asks of the home screen (``KeyTable``).
enum HomeAction: Equatable {
    // The list and the selected clip.
    case play, quickPlay, record(video: Bool), edit, delete, cut, filter, clearFilter, sort, quit
    case move(rows: Int), movePage(forward: Bool), first, last, scroll(rows: Int), deleteAll, help, redraw
    /// A play's key, as `cravey play` has it.
    case player(PlayerCommand)
    /// Marks the moment playing (its label typed after); goes to the next or previous marker.
    case mark, jumpMarker(forward: Bool)
    // A recording under way.
    case pauseRecording, stopRecording, saveAndQuit
    /// A choice of the look back at the clip just recorded.
    case lookBack(LookBackChoice)

    /// Whether it starts work that a recording under way must end first.
    var needsRecorder: Bool {
        switch self {
        case .record, .edit, .delete, .filter, .quickPlay: true
        default: false
        }
    }
}

/// One line of the key table: when it applies, its keys and what each does, how the status line
/// names it and what `?` says of it.
struct KeyBinding {
    /// When a binding applies; the first of these that applies and binds a key decides it.
    enum Context: CaseIterable {
        /// A recording under way.
        case recording
        /// A clip playing.
        case playing
        /// The clip just recorded, looked back at.
        case lookBack
        /// Always: the list, Quick Play and the actions on the selected clip.
        case browsing

        /// The heading of its part of the help.
        var heading: String {
            switch self {
            case .recording: "Recording:"
            case .playing: "Playing:"
            case .lookBack: "After a recording:"
            case .browsing: "The list:"
            }
        }
    }

    let context: Context
    /// The keys as a person reads them ("j ↓").
    let name: String
    let keys: [(key: TerminalScreen.Key, action: HomeAction)]
    /// What the status line says of it, with its keys ("Enter play"); nil: not shown there.
    let label: String?
    /// The other contexts whose status line shows it too.
    let alsoShown: [Context]
    /// What `?` says it does.
    let help: String

    init(_ context: Context, _ name: String, _ keys: [TerminalScreen.Key], _ action: HomeAction, label: String? = nil,
         alsoShown: [Context] = [], help: String) {
        self.init(context, name, keys.map { ($0, action) }, label: label, alsoShown: alsoShown, help: help)
    }

    init(_ context: Context, _ name: String, _ keys: [(key: TerminalScreen.Key, action: HomeAction)], label: String? = nil,
         alsoShown: [Context] = [], help: String) {
        (self.context, self.name, self.keys, self.label, self.alsoShown, self.help) = (context, name, keys, label, alsoShown, help)
    }
}

/// The home screen's keys, in one table (as cmus keeps its bindings): what a key does, the
/// status line's keys and the `?` help are all made from it, so a new key is one line here.
enum KeyTable {
    static let bindings: [KeyBinding] = [
        KeyBinding(.recording, "space", [.character(" ")], .pauseRecording, label: "space pause", help: "pause, go on"),
        KeyBinding(.recording, "Enter s", [.enter, .character("s")], .stopRecording, label: "Enter or s stop and save", help: "stop and save"),
        KeyBinding(.recording, "q", [.character("q")], .saveAndQuit, label: "q save and quit", help: "save and quit"),
        KeyBinding(.recording, "m", [.character(MarkerKeys.mark)], .mark, label: "m mark",
                   help: "mark this moment (type its label, Enter keeps it, Esc none)"),

        KeyBinding(.playing, "space", [.character(" ")], .player(.togglePause), label: "space pause", help: "pause, go on"),
        KeyBinding(.playing, "←/→", [(.left, .player(.skip(-15))), (.right, .player(.skip(15)))], label: "←/→ 15 s", help: "15 s back, on"),
        KeyBinding(.playing, "0-9", (0...9).map { (.character(Character(String($0))), .player(.seek(fraction: Double($0) / 10))) },
                   label: "0-9 jump", help: "jump to 0%-90% (a click on the bar too)"),
        KeyBinding(.playing, "[ ]", [(.character("["), .player(.changeSpeed(by: -0.1))), (.character("]"), .player(.changeSpeed(by: 0.1)))],
                   label: "[ ] speed", help: "10% slower, faster (pitch kept)"),
        KeyBinding(.playing, "⌫", [.backspace], .player(.resetSpeed), label: "⌫ 1x", help: "1x"),
        KeyBinding(.playing, "Esc Q", [.escape, .character("Q")], .player(.stop), label: "Esc stop", help: "stop (counted)"),
        KeyBinding(.playing, "f", [.character("f"), .character("F")], .player(.toggleFullScreen), help: "a video full screen"),
        KeyBinding(.playing, "m", [.character(MarkerKeys.mark)], .mark, label: "m mark",
                   help: "mark this moment (type its label, Enter keeps it, Esc none)"),
        KeyBinding(.playing, ", .", [(.character(MarkerKeys.previous), .jumpMarker(forward: false)),
                                     (.character(MarkerKeys.next), .jumpMarker(forward: true))],
                   label: ", . marks", help: "the previous, next marker"),

    ] + LookBackChoice.allCases.map { choice in
        // `cravey record`'s choices (``Preview``), Escape keeping too.
        KeyBinding(.lookBack, choice.key.map { String($0) } ?? "Enter Esc", choice.key.map { [.character($0)] } ?? [.enter, .escape],
                   .lookBack(choice), label: choice.label, help: choice.help)
    } + [
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
    ]

    /// What `key` does in `context`, if a binding of it has it.
    static func action(for key: TerminalScreen.Key, in context: KeyBinding.Context) -> HomeAction? {
        for binding in bindings where binding.context == context {
            if let bound = binding.keys.first(where: { $0.key == key }) { return bound.action }
        }
        return nil
    }

    /// The status line's keys in `context`, in the table's order.
    static func labels(_ context: KeyBinding.Context) -> [String] {
        bindings.filter { $0.context == context || $0.alsoShown.contains(context) }.compactMap(\.label)
    }

    /// The `?` help within `width` columns: a title, then each context's keys under its heading,
    /// as many on a line as fit; then what is not a key (Ctrl-Z).
    static func help(width: Int) -> [String] {
        var lines = ["Keys of the home screen (any key closes this)"]
        for context in KeyBinding.Context.allCases.reversed() {
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
