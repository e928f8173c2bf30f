import ArgumentParser
import CraveyCommands
import CraveyKit

/// `cravey-media`'s root: the commands that need FFmpeg or PulseAudio. `cravey` hands their
/// command lines over (see `CommandRoute`); it is named `cravey` so help and errors read as
/// the command a person typed.
package struct CraveyMedia: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "cravey",
        abstract: "Runs cravey's commands that need FFmpeg or PulseAudio; run them as `cravey <command>`.",
        version: Cravey.version,
        subcommands: MediaCommand.allCases.map(command))

    package init() {}

    /// The command that runs `media` here (its name is the verb: `MediaRoutingTests` holds it).
    package static func command(_ media: MediaCommand) -> any ParsableCommand.Type {
        switch media {
        case .home: Home.self
        case .record: Record.self
        case .play: Play.self
        case .quickplay: QuickPlayMedia.self
        case .import: Import.self
        case .doctor: Doctor.self
        case .devices: Devices.self
        case .thumbnail: Thumbnail.self
        case .waveform: WaveformMedia.self
        case .trim: Trim.self
        case .clean: Clean.self
        case .share: Share.self
        case .restore: RestoreMedia.self
        case .transcribe: Transcribe.self
        case .transcript: TranscriptMedia.self
        case .remind: RemindMedia.self
        case .sync: SyncMedia.self
        }
    }

    /// Refuses a `cravey` command handed over here that this executable cannot run yet (`quickplay 2`
    /// would play a clip), saying so instead of ArgumentParser's "unexpected arguments" (exit 64).
    package static func checkAvailable(_ arguments: [String]) throws {
        guard let verb = arguments.first,
              Cravey.configuration.subcommands.contains(where: { $0._commandName == verb }),
              !configuration.subcommands.contains(where: { $0._commandName == verb }) else { return }
        throw CraveyError(.invalidInput, "`\(verb)` with these arguments is not available in this version of cravey. See `cravey help \(verb)` for what it can do.")
    }

    /// Parses a command line, first refusing an `import` file name that would be read as options
    /// (see ``ImportOptions/checkDashedFile(_:parseFailed:)``), and again once parsing failed.
    package static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        guard arguments.first == ImportOptions.configuration.commandName else { return try parseAsRoot(arguments) }
        try ImportOptions.checkDashedFile(arguments.dropFirst())
        do {
            return try parseAsRoot(arguments)
        } catch where exitCode(for: error) != .success {
            try ImportOptions.checkDashedFile(arguments.dropFirst(), parseFailed: true)
            throw error
        }
    }
}
