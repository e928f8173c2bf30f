import ArgumentParser
import CraveyCommands

/// `cravey-media`'s root: the commands that need FFmpeg or PulseAudio. `cravey` hands their
/// command lines over (see `CommandRoute`); it is named `cravey` so help and errors read as
/// the command a person typed.
struct CraveyMedia: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cravey",
        abstract: "Runs cravey's commands that need FFmpeg or PulseAudio; run them as `cravey <command>`.",
        version: Cravey.version,
        subcommands: [Record.self, Import.self, Doctor.self, Devices.self])
}
