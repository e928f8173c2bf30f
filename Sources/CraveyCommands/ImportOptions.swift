import ArgumentParser
import CraveyCore
import Foundation

/// `cravey import`'s command line: its help, options and validation, shared by `cravey` (which
/// lists it in its help) and `cravey-media` (whose `Import` command runs it). See ``Cravey``.
public struct ImportOptions: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add an existing audio or video file to the library.",
        discussion: """
            Any format FFmpeg reads with an audio or video stream. AAC audio (and H.264 video) in \
            MP4 is kept as it is; anything else is converted: audio to AAC in .m4a, video to H.264 \
            and AAC in .mp4. Videos get a thumbnail. Without --title, the clip is named after \
            the file, without its extension (past 40 characters, shortened at a word with "…"). \
            A named pipe, a directory or a device exits 64 at once; a file that cannot be \
            decoded exits 65; either way nothing is stored. The original file is left where it \
            is. A file whose name starts with a dash goes after `--`: `cravey import -- -take1.m4a`.
            """)

    @OptionGroup public var options: LibraryOptions
    @Argument(help: "The file to import.") public var file: String
    @OptionGroup public var metadata: MetadataOptions
    @Flag(help: "Print the whole recording as JSON instead of its id.") public var json = false

    public init() {}

    /// Refuses a file name that starts with a dash given without `--` before it, which
    /// ArgumentParser would read as options: `-dash.m4a` is `-d -a -s -h ...` to it, and the `-h`
    /// printed the help with exit 0. `cravey` has no short option but `-h`, so any other word of
    /// one dash and more characters is refused at once; a word of two dashes only once parsing
    /// has failed (`parseFailed`) and a file of that name exists. `arguments` follow the verb.
    public static func checkDashedFile(_ arguments: some Sequence<String>, parseFailed: Bool = false) throws {
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
