import CraveyCommands
import CraveyKit

extension MediaRunner {
    func devices(_ command: Devices) async throws {
        try await reportingErrors {
            let sources = try await SoundServer.sources()
            if command.json { return try Terminal.printJSON(sources) }
            Terminal.output(Format.table(
                ["DEFAULT", "NAME", "DESCRIPTION"],
                sources.map { [$0.isDefault ? "*" : "", $0.name, $0.description + ($0.isMonitor ? " (monitor of an output)" : "")] }))
        }
    }
}
