import ArgumentParser
import CraveyCore

/// `cravey`'s root command: every command, so `cravey --help` lists them all.
///
/// The media commands appear here by their definitions (``RecordOptions``, ``DevicesOptions``,
/// ``DoctorOptions``, ``ImportOptions``, ``PlayOptions``, ``QuickPlayOptions``, ``ThumbnailOptions``: configuration, options and validation, no `run`), which
/// `cravey` can show without linking FFmpeg: `cravey --help` and `cravey help record` work
/// here. `cravey` never parses a media command line: ``CommandRoute`` hands it to
/// `cravey-media` first, whose commands (`Record` and the rest, each wrapping its definition in
/// an `@OptionGroup`) run it. So the hand-off needs no protocol, no global and no stub `run`.
package struct Cravey: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "cravey",
        abstract: "Record short motivational clips and keep them in a private, local library.",
        discussion: """
            Everything stays on this machine. The library folder is --library PATH (before or \
            after the command), else $CRAVEY_LIBRARY, else $XDG_DATA_HOME/cravey \
            (~/.local/share/cravey). `--library ""` is refused (exit 64): an empty path never \
            quietly means the default library. A recording is named by its id or any unique \
            prefix of it, as with git.

            Titles are at most 40 characters and notes at most 200; longer input is refused, \
            never cut. Spaces (and line breaks) at the ends of a title or notes are removed, and \
            stderr says so. A title may start with a dash: `--title "-2+3"` is a title. A blank \
            title becomes "Recording Nov 22, 2026 3:42 PM" (the local creation time). Titles and \
            notes cannot hold control characters (ESC, BEL, the C1 range, tab; titles no line \
            breaks either, notes may): the command exits 64 naming the character and where it is, \
            as "U+001B (ESC) at character 3". Whatever a stored row holds anyway (an older row, a \
            hand-edited database) is printed escaped: a line break as the return symbol (U+23CE), any other control \
            character as "<U+001B>"; --json output is exact, escaped by JSON itself. Purposes: \
            motivational, craving, reflection, milestone.

            Every command that prints data takes --json. A recording is an object with id, type \
            (audio or video), title, notes, purpose (or null), createdAt (ISO 8601), duration \
            (seconds), filePath and thumbnailPath (relative to the library), fileSize (bytes), \
            playCount, lastPlayedAt, pinnedSlot (the Quick Play slot it is pinned to, or null: \
            `cravey pin`), tags (an array of words: `cravey tag`) and markers (an array of \
            {"at": seconds, "label": text or null}: `cravey markers`); lists are arrays of these.

            Settings (`cravey settings`, in $XDG_CONFIG_HOME/cravey/settings.toml) hold the \
            choices you would otherwise type on every command; a flag wins over its setting. By \
            default the desktop (media controls, lock screen, notifications, a video's window) \
            is shown "cravey" and "Playing your clip", never a clip's words: see `cravey help \
            settings`. A --title, --notes or --purpose given on the command line is hidden from \
            `ps` once read.

            Exit codes: 0 ok, 64 invalid input, 65 undecodable media or a damaged backup (or a \
            wrong passphrase), 66 unknown id (or reminder number) or missing file, 67 a passphrase that does not open \
            the sync folder, 69 no sound server, device or \
            camera (or one over the network: see network.allow-servers; cravey names the local server's socket to \
            PulseAudio, never taking one from its client.conf or the X display) or no transcriber (`cravey help transcribe`) or, for `remind --fire`, no session bus or notification server, 73 cannot write, 75 another cravey changed the same clip meanwhile (try \
            again), 76 a folder that cannot be a sync folder (`cravey help sync`), 77 a settings file not read (a link, over 64 KiB, or one others can change: \
            see `cravey help settings`), 78 a library a newer cravey wrote, 130 an import stopped \
            by Ctrl-C (or a passphrase prompt left), 1 anything else. Output to a closed pipe \
            (`cravey list | head`) ends quietly with 0.
            """,
        version: version,
        // The media commands' definitions from their list (``MediaCommand``), each where the help lists it.
        subcommands: [MediaCommand.home, .record, .play].map(\.definition)
            + [List.self, Search.self, Info.self, MediaCommand.quickplay.definition, Tag.self, Markers.self, Pin.self, Unpin.self, Edit.self,
               Delete.self, DeleteAll.self, MediaCommand.import.definition, Export.self, Backup.self, MediaCommand.restore.definition, Storage.self, MediaCommand.remind.definition, MediaCommand.sync.definition]
            + [MediaCommand.doctor, .devices, .thumbnail, .waveform, .trim, .clean, .share, .transcribe, .transcript].map(\.definition)
            + [Words.self, SettingsCommand.self]
    )

    /// What `--version` prints, in both executables.
    package static let version = RecordingLibrary.programVersion

    package init() {}
}
