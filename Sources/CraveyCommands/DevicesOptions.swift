import ArgumentParser
import CraveyCore

/// `cravey devices`'s command line: its help, options and validation, shared by `cravey` (which
/// lists it in its help) and `cravey-media` (whose `Devices` command runs it). See ``Cravey``.
public struct DevicesOptions: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the sound server's audio sources (pass a name to `record --device`).")

    /// Not used: accepted so the global `cravey --library PATH devices` works as for every command.
    @OptionGroup public var options: LibraryOptions

    @Flag(help: "Print a JSON array of sources.")
    public var json = false

    public init() {}
}
