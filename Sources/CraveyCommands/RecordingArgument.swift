import ArgumentParser
import CraveyCore

/// The `--library` option and the recording's id, shared by the commands that act on one recording.
struct RecordingArgument: ParsableArguments {
    @OptionGroup var options: LibraryOptions
    @Argument(help: "The recording's id, or any unique prefix of it.", completion: Completion.recordingIDs) var id: String

    /// Opens the library and finds the one recording whose id starts with ``id``.
    func open() throws -> (library: RecordingLibrary, recording: Recording) {
        let library = try options.open()
        return (library, try library.recording(matching: id))
    }
}
