import ArgumentParser
import CraveyCore

/// The `--library` option every command shares.
public struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The library folder (default: $CRAVEY_LIBRARY, else $XDG_DATA_HOME/cravey).", valueName: "path"))
    public var library: String?

    public init() {}

    /// Opens the library, creating it if needed.
    public func open() throws -> RecordingLibrary {
        try RecordingLibrary(at: LibraryLocation.resolve(explicit: library))
    }
}
