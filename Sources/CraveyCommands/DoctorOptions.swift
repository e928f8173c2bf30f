import ArgumentParser
import CraveyCore

/// `cravey doctor`'s command line: its help, options and validation, shared by `cravey` (which
/// lists it in its help) and `cravey-media` (whose `Doctor` command runs it). See ``Cravey``.
public struct DoctorOptions: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check that the library's entries and files agree; --repair fixes what it finds.",
        discussion: """
            Finds entries whose file is missing, files with no entry (a recording cut off by a \
            crash, for example), thumbnails and waveforms with no entry, size mismatches and \
            interrupted deletions. --repair registers playable orphan files as recordings titled \
            "Recovered <date>", removes entries whose media is gone, fixes sizes and removes \
            orphan thumbnails and waveforms. Unplayable fragments are deleted only with \
            --delete-unplayable. It also counts clips whose loudness is not measured yet, or \
            whose waveform is not made yet (which is no problem: playing one measures it, \
            `cravey waveform` makes it); --repair measures them, both in one decoding.
            Exits 0 when the library is healthy (or was repaired), 1 when problems remain.
            """)

    @OptionGroup public var options: LibraryOptions
    @Flag(help: "Repair what was found.") public var repair = false
    @Flag(help: "With --repair, also delete orphan files that cannot be played.") public var deleteUnplayable = false
    @Flag(help: "Print the report as JSON.") public var json = false

    public init() {}

    public func validate() throws {
        if deleteUnplayable && !repair { throw ValidationError("--delete-unplayable goes with --repair.") }
    }
}
