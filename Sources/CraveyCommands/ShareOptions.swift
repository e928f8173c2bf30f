import ArgumentParser
import CraveyCore

/// `cravey share`'s command line, shared by `cravey` (its help) and `cravey-media` (whose
/// `Share` runs it). See ``Cravey``.
package struct ShareOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Write one clip to a file for someone else: plain, at cravey's level, nothing about you in it.",
        discussion: """
            The format is the one --output's extension names: .m4a (AAC), .opus (Opus in Ogg), \
            .mp3, .ogg (Vorbis) or .wav (16-bit PCM); a video also as .mp4 (its pictures \
            copied, its sound as AAC), or as any of the others for its sound alone. The sound is \
            brought to the level cravey plays it at (its loudness toward -16 LUFS, its peaks \
            under -1 dBTP), at 48 kHz, in its channels up to stereo.

            The file carries no metadata but what you ask for: no creation time, no encoder or \
            library name, no device, no cravey id; --title writes a title tag, and --chapters \
            the clip's markers (`cravey markers`) as chapters, each up to the next, titled by \
            its label or "Marker N", after a chapter "Start" before the first (labels are \
            words: never without --chapters). Chapters go in .m4a, .mp3 and a video's .mp4; \
            .opus and .ogg (FFmpeg 5.1 writes an Ogg chapter a second late), .wav (no chapters) \
            and a clip without markers exit 64. It is a new file, \
            mode 0600, refused as `export --output` is: something already there without --force, \
            anything not a regular file (even with --force), any place inside the library (exit \
            64). An extension of no format, .mp4 for a clip without pictures, or a clip without \
            sound exits 64, an unknown id or a missing file 66, a full disk 73. On a terminal a \
            clip longer than 30 s shows its progress.
            """)

    @OptionGroup package var options: LibraryOptions
    @Argument(help: "The recording's id, or any unique prefix of it.", completion: Completion.recordingIDs) package var id: String
    @Option(help: ArgumentHelp("Write to this new file (mode 0600); its extension names the format. Never a place inside the library.", valueName: "path"))
    package var output: String
    // Unconditional: a title is text, and "-2+3" is a title, not an option.
    @Option(parsing: .unconditional, help: "Write this title in the file's tags (nothing else is written).") package var title: String?
    @Flag(help: "Write the clip's markers as the file's chapters, titled by their labels (.m4a, .mp3, .mp4).") package var chapters = false
    @Flag(help: "Replace a regular file already at --output (never a folder, a link or a device).") package var force = false

    package init() {}
}
