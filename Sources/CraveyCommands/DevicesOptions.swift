import ArgumentParser
import CraveyCore

/// `cravey devices`'s command line: its help, options and validation, shared by `cravey` (which
/// lists it in its help) and `cravey-media` (whose `Devices` command runs it). See ``Cravey``.
public struct DevicesOptions: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the sound server's sources (for `record --device`) and sinks (for `play --device`).",
        discussion: """
            --json prints one array: each source as before (name, description, isDefault: the \
            default source, isMonitor) and each sink, all with kind ("source" or "sink") and \
            isDefaultSink.
            """)

    /// Not used: accepted so the global `cravey --library PATH devices` works as for every command.
    @OptionGroup public var options: LibraryOptions

    @Flag(help: "Print a JSON array of the sources and sinks.")
    public var json = false

    public init() {}
}
