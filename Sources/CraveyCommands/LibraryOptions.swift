import ArgumentParser
import CraveyCore
import Foundation

/// The `--library` option every command shares.
public struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The library folder (default: $CRAVEY_LIBRARY, else $XDG_DATA_HOME/cravey).", valueName: "path"))
    public var library: String?

    public init() {}

    public var url: URL { LibraryLocation.resolve(explicit: library) }

    /// Opens the library, creating it if needed.
    public func open() throws -> RecordingLibrary {
        do {
            return try RecordingLibrary(at: url)
        } catch let error as CraveyError {
            throw error
        } catch {
            throw CraveyError(.cannotWrite, "Cannot open the library at \(url.path): \(error). Check the folder or choose another with --library PATH.")
        }
    }
}
