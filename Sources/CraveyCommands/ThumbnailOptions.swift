import ArgumentParser
import CraveyCore

/// `cravey thumbnail`'s command line: its help, options and validation, shared by `cravey`
/// (which lists it in its help) and `cravey-media` (whose `Thumbnail` command runs it). See
/// ``Cravey``.
package struct ThumbnailOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make a video's thumbnail again, at 10% of its length or at a time you choose.",
        discussion: """
            The thumbnail is a 320-pixel-wide JPEG: without --at, the first frame that is not \
            near-black from 10% of the video on, as at import; with --at, the frame showing at \
            that time (from 0 to the video's length). It replaces the stored thumbnail in one \
            step, or with --output goes to a new file elsewhere (refused as `export --output` \
            is: something already there without --force, anything not a regular file, any \
            place inside the library), changing nothing in the library. An audio recording or a \
            time past the end exits 64, an unknown id or a missing file 66, a video that does \
            not decode 65.
            """)

    @OptionGroup package var options: LibraryOptions
    @Argument(help: "The video's id, or any unique prefix of it.", completion: Completion.recordingIDs) package var id: String
    @Option(help: ArgumentHelp("Take the frame at this many seconds into the video.", valueName: "seconds"))
    package var at: Double?
    @Option(help: ArgumentHelp("Write the JPEG to this new file (mode 0600) instead of the library. Never a place inside the library.", valueName: "path"))
    package var output: String?
    @Flag(help: "With --output: replace a regular file already there (never a folder, a link or a device).")
    package var force = false
    @Flag(help: "Print the whole recording as JSON instead of the thumbnail's path.") package var json = false

    package init() {}

    package func validate() throws {
        if let at, !(at >= 0 && at.isFinite) {
            throw ValidationError("--at must be a number of seconds from 0, not \(at).")
        }
        if force && output == nil {
            throw ValidationError("--force only goes with --output.")
        }
        if json && output != nil {
            throw ValidationError("--json prints the recording stored in the library; with --output nothing there changes.")
        }
    }
}
