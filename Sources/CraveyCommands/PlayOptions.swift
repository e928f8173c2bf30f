import ArgumentParser
import CraveyCore
import Foundation

/// `cravey play`'s command line: its help, options and validation, shared by `cravey` (which
/// lists it in its help) and `cravey-media` (whose `Play` command runs it). See ``Cravey``.
public struct PlayOptions: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a recording through the sound server and count the play.",
        discussion: """
            Plays the clip to the default PulseAudio sink or --device; a video also shows in a \
            window titled with the clip's title, its pictures in step with the sound (f or a \
            double click: full screen; closing the window stops). Without a display (DISPLAY, \
            WAYLAND_DISPLAY) or with --no-video a video plays its sound only; a display that \
            cannot be opened is named, and the sound plays. On a terminal it shows the title \
            and a progress bar. Keys, on the terminal and in the window: space pause/resume, \
            left/right arrows skip 15 s back/forward, 0-9 jump to 0-90%, Home/End to the start \
            and the end, q, Escape or Ctrl-C stop. Elsewhere it plays to the end; SIGINT and \
            SIGTERM stop it. Playing to the end or stopping counts one play (the seconds \
            listened, whether it completed); --no-count counts nothing. Every clip plays at one \
            loudness (toward -16 LUFS, its true peak under -1 dBTP); --no-normalize plays it at \
            its own level. A missing file exits 66, an undecodable one 65, no sound server 69; \
            none of them counts a play.
            """)

    @OptionGroup public var options: LibraryOptions
    @Argument(help: "The recording's id, or any unique prefix of it.", completion: Completion.recordingIDs) public var id: String
    @OptionGroup public var playback: PlaybackFlags
    @Flag(help: "Print one JSON object per line while playing (state, position, duration), and the play at the end.")
    public var json = false
    @Flag(help: "Hand the file to the desktop's default player (xdg-open) instead, and count the play; without a desktop, exit 69.")
    public var open = false

    public init() {}
}

/// The options `play` and `quickplay N` share.
public struct PlaybackFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Start this many seconds into the clip.", valueName: "seconds"))
    public var from: Double?

    @Flag(name: .customLong("no-count"), help: "Play without counting a play (a preview).")
    public var noCount = false

    @Flag(name: .customLong("no-normalize"),
          help: "Play at the clip's own level instead of turning it toward -16 LUFS (equal loudness).")
    public var noNormalize = false

    @Option(help: ArgumentHelp("The PulseAudio sink to play to (see `cravey devices`).", valueName: "sink"),
            completion: Completion.devices("sink"))
    public var device: String?

    @Flag(name: .customLong("no-video"), help: "Play a video's sound only, without its window.")
    public var noVideo = false

    public init() {}

    public func validate() throws {
        if let from, !(from >= 0 && from.isFinite) {
            throw ValidationError("--from must be a number of seconds from 0, not \(from).")
        }
    }
}
