import ArgumentParser
import CraveyKit

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the sound server's audio sources (pass a name to `record --device`).")

    @Flag(help: "Print a JSON array of sources.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            let sources = try await SoundServer.sources()
            if json { return try Terminal.printJSON(sources) }
            Terminal.output(Format.table(
                ["DEFAULT", "NAME", "DESCRIPTION"],
                sources.map { [$0.isDefault ? "*" : "", $0.name, $0.description + ($0.isMonitor ? " (monitor of an output)" : "")] }))
        }
    }
}
