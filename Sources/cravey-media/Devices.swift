import ArgumentParser
import CraveyCommands
import CraveyKit

/// Runs `cravey devices` (its command line is ``DevicesOptions``, which `cravey` shows in its help).
struct Devices: AsyncParsableCommand {
    static let configuration = DevicesOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: DevicesOptions

    func run() async throws {
        try Terminal.print(try await SoundServer.sources(), json: command.json) { sources in
            Format.table(["DEFAULT", "NAME", "DESCRIPTION"], sources.map {
                [$0.isDefault ? "*" : "", $0.name, $0.description + ($0.isMonitor ? " (monitor of an output)" : "")]
            })
        }
    }
}
