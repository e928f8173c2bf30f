import ArgumentParser
import CraveyCore
import Foundation

/// `cravey record`'s command line: its help, options and validation, shared by `cravey` (which
/// lists it in its help) and `cravey-media` (whose `Record` command runs it). See ``Cravey``.
public struct RecordOptions: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a clip from the microphone into the library.",
        discussion: """
            Records AAC audio (48 kHz mono, 96 kb/s) into Recordings/ until --seconds have been \
            captured or you press Ctrl-C (SIGINT and SIGTERM save the clip). Prints the new \
            recording's id. On a terminal a level meter and timer are shown on stderr.
            """)

    @OptionGroup public var options: LibraryOptions

    @Option(help: "Stop after this many seconds of audio, from 0.1 to 86400 (24 hours).")
    public var seconds: Double?

    @OptionGroup public var metadata: MetadataOptions

    @Option(help: ArgumentHelp("The PulseAudio source to record from (see `cravey devices`).", valueName: "source"))
    public var device: String?

    @Flag(help: "Print the whole recording as JSON instead of its id.")
    public var json = false

    public init() {}

    public func validate() throws {
        // Less than 0.1 s is a typo, not a clip (1e-9 used to end as "No audio arrived", exit 69);
        // NaN fails both comparisons.
        if let seconds, !(seconds >= 0.1 && seconds <= 24 * 3600) {
            throw ValidationError("--seconds must be from 0.1 to 86400 (24 hours), not \(seconds).")
        }
    }
}
