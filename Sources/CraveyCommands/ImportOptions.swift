import ArgumentParser
import CraveyCore
import Foundation

/// `cravey import`'s command line: its help, options and validation, shared by `cravey` (which
/// lists it in its help) and `cravey-media` (whose `Import` command runs it). See ``Cravey``.
package struct ImportOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add an existing audio or video file to the library.",
        discussion: """
            Any format FFmpeg reads with an audio or video stream. AAC audio (and H.264 video) in \
            MP4 is kept as it is; anything else is converted: audio to AAC at 48 kHz in .m4a, in \
            the source's channels up to stereo (mono 96 kb/s, stereo 128 kb/s; more channels \
            mixed down to stereo), video to H.264 and AAC in .mp4. Videos get a thumbnail. \
            Without --title, the clip is named after the file, without its extension (past 40 \
            characters, shortened at a word with an ellipsis). The original file is left where it is. A \
            file whose name starts with a dash goes after `--`: `cravey import -- -take1.m4a`.

            What it refuses, it refuses before anything is stored. A named pipe, a directory, a \
            device or a socket (links followed) exits 64 at once, naming what it is. Zero bytes, \
            random bytes, a file cut short (an MP4 whose index is there but whose data stops: \
            the message gives both times), a still picture, a file with no audio or video, or \
            one no frame of which decodes exits 65, "Nothing was stored".

            What it imports keeps its real length, whatever the timestamps say: video frames \
            without a timestamp (an MPEG-1 or H.264 elementary stream) follow one another at the \
            stream's frame rate; audio is timed by its samples from its first timestamp, so \
            samples whose timestamps go back are dropped and a gap is filled with silence (a \
            jump of more than 10 s is a break in the stream, joined up rather than filled); a \
            duration a header claims counts only when the streams agree with it.

            Ctrl-C, SIGTERM or SIGHUP stops an import and leaves nothing in the library (exit \
            130); one arriving once the clip is saved lets it finish as usual (its id printed, \
            exit 0). An import killed outright leaves an .importing file that the next \
            `cravey doctor --repair` deletes.
            """)

    @OptionGroup package var options: LibraryOptions
    @Argument(help: "The file to import.") package var file: String
    @OptionGroup package var metadata: MetadataOptions
    @Flag(help: "Print the whole recording as JSON instead of its id.") package var json = false

    package init() {}

    /// The imported clip's words: the options' (``MetadataOptions/metadata(with:)``), titled after
    /// the file without its extension when no --title is given (`--title ""` asks for the
    /// automatic title, "Recording <date>").
    package func clipMetadata(with settings: Settings) throws -> RecordingMetadata {
        var chosen = try metadata.metadata(with: settings)
        if metadata.title == nil {
            chosen.title = RecordingMetadata.title(forFileAt: URL(fileURLWithPath: file))
        }
        return chosen
    }

    /// Refuses a file name that starts with a dash given without `--` before it, which
    /// ArgumentParser would read as options: `-dash.m4a` is `-d -a -s -h ...` to it, and the `-h`
    /// printed the help with exit 0. `cravey` has no short option but `-h`, so any other word of
    /// one dash and more characters is refused at once; a word of two dashes only once parsing
    /// has failed (`parseFailed`) and a file of that name exists. `arguments` follow the verb.
    package static func checkDashedFile(_ arguments: some Sequence<String>, parseFailed: Bool = false) throws {
        // The word after an option that takes a value is that value (`--title "-2+3"`), not a file.
        let valued: Set<String> = ["--library", "--title", "--notes", "--purpose"]
        let words = Array(arguments.prefix(while: { $0 != "--" }))
        for (index, argument) in words.enumerated() where argument.hasPrefix("-") && argument != "-" {
            if index > 0 && valued.contains(words[index - 1]) { continue }
            let isShort = !argument.hasPrefix("--") && argument != "-h"
            guard isShort || parseFailed && FileManager.default.fileExists(atPath: argument) else { continue }
            throw CraveyError(.invalidInput, """
                \(argument) is not an option of `cravey import`. To import a file whose name starts with \
                a dash, put `--` before it: `cravey import -- \(argument)`.
                """)
        }
    }
}
