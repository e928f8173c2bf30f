import ArgumentParser
import CraveyCommands

/// What `cravey-media`'s manual page says: what the program is, and where its commands are
/// documented. Only ArgumentParser's `--experimental-dump-help` reaches it.
struct CraveyMediaManual: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cravey-media",
        abstract: "Runs cravey's commands that need FFmpeg or PulseAudio.",
        discussion: """
            cravey hands the commands home (and cravey alone on a terminal), record, play, quickplay N, import, doctor, devices, \
            thumbnail, trim, clean, share, restore, transcribe and transcript to cravey-media, installed beside it, before parsing anything, and waveform \
            when the clip's waveform is not stored yet; a person runs them as `cravey <command>`, \
            and cravey-media accepts the same command lines. Every command and option is \
            described in cravey(1).
            """,
        version: Cravey.version)
}
