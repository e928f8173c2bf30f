import ArgumentParser
import CraveyCore
import Foundation

/// `cravey play`'s command line: its help, options and validation, shared by `cravey` (which
/// lists it in its help) and `cravey-media` (whose `Play` command runs it). See ``Cravey``.
package struct PlayOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a recording through the sound server and count the play.",
        discussion: """
            Plays the clip to the default PulseAudio sink or --device. On a terminal it shows \
            the title and a progress line: the position, the clip's waveform with the played \
            part marked (in colour, or a vertical line under NO_COLOR; a plain bar for a clip whose waveform \
            is not made yet) and the length. Keys, on the terminal and in a video's window: \
            space pause/resume, left/right arrows skip 15 s back/forward (within the clip), 0-9 \
            jump to 0-90%, Home/End to the start and the end, a click on the bar to that point \
            (xterm's mouse reporting, on only while it plays), [ and ] 10% slower and faster \
            (0.5x to 2x, the pitch kept, as mpv does; --speed starts at one), Backspace back to \
            1x, q, Escape or Ctrl-C stop. On the terminal, m marks the moment playing (a \
            marker, shown as ◆ on the bar; its label is typed after it, in ASCII, Enter keeps it \
            and Escape leaves it without one) and , and . go to the previous and next marker \
            (`cravey markers`). The \
            terminal's mode is put back on every way out (the end, a key, SIGTERM, SIGHUP, a \
            failure). Not on a terminal it plays to the end; SIGINT, SIGTERM and SIGHUP stop it, \
            and the play is counted.

            Playing to the end or stopping counts one play (the seconds listened, whether it \
            completed), in one transaction; --no-count counts nothing. Every clip plays at one \
            loudness: its integrated loudness and true peak (EBU R128) are measured when it is \
            saved, or by `cravey doctor --repair` or at its first play for clips saved before \
            that, and it is turned toward -16 LUFS, a quiet clip up only as far as keeps its \
            true peak under -1 dBTP (never down), a silent clip not at all; --no-normalize \
            plays it at its own level. A missing file exits 66, an undecodable one 65, no sound \
            server or an unknown --device 69; none of them counts a play.

            A video also shows in a window of its own, titled with the clip's title, as big as \
            its pictures (a phone's upright, as its rotation says; within the screen), \
            resizable, each picture shown when its sound is heard; f or a double click turns \
            full screen on and off, and closing the window stops (and counts) as q does. \
            Without a display (no DISPLAY or WAYLAND_DISPLAY) or with --no-video it plays its \
            sound and says so; a display that cannot be opened, or does not answer within 5 s, \
            is named on stderr and the sound plays alone (exit 0). A video without sound plays \
            on the system's clock, with no sound server needed. The last line (and --json's \
            play) gives the pictures shown and those dropped because they were late.

            While it plays, cravey is a media player of the desktop (MPRIS, \
            org.mpris.MediaPlayer2.cravey; a second one at once is cravey.instance<pid>): the \
            keyboard's play/pause and stop keys, GNOME's and KDE's media controls and \
            `playerctl -p cravey play-pause|stop|position 30|metadata` pause, resume, seek and \
            stop it as the keys do, and show its title, length and position (a video's \
            thumbnail as its picture); its speed is MPRIS's Rate, which they may read and set \
            (0.5 to 2). Started without a terminal (a launcher, a keyboard \
            shortcut), it shows a notification naming the clip, with a Stop button. Without a \
            session bus (a server, an SSH session) nothing of this is loaded or said. The bus \
            is a local socket; a tcp: bus address is not used.
            """)

    @OptionGroup package var options: LibraryOptions
    @Argument(help: "The recording's id, or any unique prefix of it.", completion: Completion.recordingIDs) package var id: String
    @OptionGroup package var playback: PlaybackFlags
    @Flag(help: "Print one JSON object per line while playing (state, position, duration), and the play at the end.")
    package var json = false
    @Flag(help: "Hand the file to the desktop's default player (xdg-open) instead, and count the play; without a desktop, exit 69.")
    package var open = false

    package init() {}
}

/// The options `play` and `quickplay N` share.
package struct PlaybackFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Start this far into the clip: seconds (12.5), or minutes and seconds (1:02.5), as `cravey search` shows a match's time; past the clip's end exits 64.",
                               valueName: "time"))
    package var from: ClipTime?

    @Flag(name: .customLong("no-count"), help: "Play without counting a play (a preview).")
    package var noCount = false

    @Flag(name: .customLong("no-normalize"),
          help: "Play at the clip's own level instead of turning it toward -16 LUFS (equal loudness).")
    package var noNormalize = false

    @Option(help: ArgumentHelp("The PulseAudio sink to play to (see `cravey devices`).", valueName: "sink"),
            completion: Completion.devices("sink"))
    package var device: String?

    @Flag(name: .customLong("no-video"), help: "Play a video's sound only, without its window.")
    package var noVideo = false

    @Option(help: ArgumentHelp("Play this many times as fast, from 0.5 to 2, the pitch kept ([ and ] change it by 0.1 while it plays).",
                               valueName: "factor"))
    package var speed: Double = 1

    @Flag(name: .customLong("skip-silence"),
          help: "Skip the clip's quiet stretches of a second or more, read from its stored waveform (z turns it on and off while it plays; the line shows the time saved).")
    package var skipSilence = false

    package init() {}

    package func validate() throws {
        if !(0.5...2).contains(speed) {
            throw ValidationError("--speed must be from 0.5 to 2 (half to twice the clip's own speed), not \(speed).")
        }
    }
}
