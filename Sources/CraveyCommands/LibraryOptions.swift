import ArgumentParser
import CraveyCore
import Foundation

/// The `--library` option every command shares.
package struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The library folder (default: $CRAVEY_LIBRARY, else $XDG_DATA_HOME/cravey).", valueName: "path"))
    package var library: String?

    package init() {}

    /// The library folder these options name.
    package var libraryURL: URL {
        LibraryLocation.resolve(explicit: library)
    }

    /// Opens the library, and shows its warnings once on stderr. Only a command that adds clips
    /// (`creating`: record, import, restore, a repair) makes the library when it is not there;
    /// the others read a missing one as empty and create nothing. `--library ""` is refused
    /// (exit 64): it must never quietly mean the default library.

    package func open(creating: Bool = false) throws -> RecordingLibrary {
        if library?.isEmpty == true {
            throw CraveyError(.invalidInput, "--library needs a folder; it was given an empty path. Name the library folder, or leave the option out for the default ($CRAVEY_LIBRARY, else $XDG_DATA_HOME/cravey).")
        }
        let opened = try RecordingLibrary(at: LibraryLocation.resolve(explicit: library), creating: creating)
        for warning in opened.warnings { Terminal.diagnostic("cravey: warning: \(warning)") }
        return opened
    }
}
