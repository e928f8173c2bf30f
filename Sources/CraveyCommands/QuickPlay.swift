import ArgumentParser
import CraveyCore

/// `cravey quickplay [N]`'s command line, shared by `cravey` (whose ``QuickPlay`` lists) and
/// `cravey-media`, which plays the Nth (``CommandRoute`` sends it there when N is given).
package struct QuickPlayOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "quickplay",
        abstract: "List Quick Play (the pinned recordings, then the most played: 3 in all), or play one of them.",
        discussion: """
            Without N, lists them: the recordings pinned to a slot (`cravey pin ID [SLOT]`) in \
            their slots, the other slots filled with the most played. With N (1 to 3), plays the Nth at once, as `cravey play` does \
            (same keys, window, media controls, counting and exit codes); an empty library exits \
            66 and says how to record the first clip.

            To play your most played clip with one key, bind `cravey quickplay 1` to a keyboard \
            shortcut (give the full path, such as ~/.local/bin/cravey, if that is not on the \
            session's PATH), or use the "cravey Quick Play" launcher that `scripts/install` puts \
            in the applications menu. Started that way, the play shows a notification with a \
            Stop button, and the media keys pause and stop it; the same key again starts another \
            play.
            """)

    @OptionGroup package var options: LibraryOptions
    @Argument(help: "Play the Nth recording of Quick Play (1 to 3).") package var number: Int?
    @Option(help: "Quick Play among the recordings tagged so (`cravey tag`).", completion: Completion.tags)
    package var tag: String?
    @OptionGroup package var playback: PlaybackFlags
    @Flag(help: "Print a JSON array of recordings; with N, one JSON object per line while playing, as `play --json`.")
    package var json = false

    package init() {}

    package func validate() throws {
        if let number, !(1...RecordingLibrary.quickPlayCount).contains(number) {
            throw ValidationError("N must be from 1 to \(RecordingLibrary.quickPlayCount), not \(number).")
        }
    }

    /// Prints Quick Play as a table, or a JSON array with `--json`.
    package func list() throws {
        try Terminal.printRecordings(try options.open().quickPlay(tagged: tag), json: json, tagged: tag, columns: [
            "ID": Format.shortID, "TITLE": { Format.visible($0.title) }, "PLAYS": { String($0.playCount) },
            "LAST PLAYED": { $0.lastPlayedAt.map(Format.date) ?? "never" },
            "DURATION": { Format.duration($0.duration) }, "PINNED": { $0.pinnedSlot.map { "slot \($0)" } ?? "" },
        ])
    }

    /// The recording `quickplay N` plays; throws `.notFound` (exit 66) when there is none.
    package func chosen() throws -> (library: RecordingLibrary, recording: Recording) {
        let library = try options.open()
        let top = try library.quickPlay(tagged: tag)
        let number = number ?? 1
        if top.isEmpty, let tag {
            throw CraveyError(.notFound, "No recording is tagged \"\(Format.visible(tag))\": Quick Play for it is empty. `cravey tag ID +\(Format.visible(tag))` tags one.")
        }
        guard !top.isEmpty else {
            throw CraveyError(.notFound, "Quick Play is empty: the library has no recordings yet. Record the first one with `cravey record --title \"Why I stopped\"` (Ctrl-C ends it), then `cravey quickplay 1` plays it.")
        }
        guard number <= top.count else {
            throw CraveyError(.notFound, "Quick Play holds \(top.count) recording\(top.count == 1 ? "" : "s"), so there is no number \(number). Run `cravey quickplay` to list them.")
        }
        return (library, top[number - 1])
    }
}

/// `cravey quickplay` without N: lists. With N, ``CommandRoute`` has already handed the command
/// line to `cravey-media`, which plays it.
struct QuickPlay: ParsableCommand {
    static let configuration = QuickPlayOptions.configuration

    @OptionGroup var command: QuickPlayOptions

    func run() throws {
        guard command.number == nil else {
            throw CraveyError(.other, "Playing needs cravey-media, which runs `quickplay N`; run it through `cravey`.")
        }
        try command.list()
    }
}
