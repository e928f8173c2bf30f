import ArgumentParser
import CraveyCommands
import CraveyKit

/// Runs `cravey devices` (its command line is ``DevicesOptions``, which `cravey` shows in its help).
struct Devices: AsyncParsableCommand {
    static let configuration = DevicesOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: DevicesOptions

    func run() async throws {
        let rows = try await SoundServer.sources().map(Device.init) + SoundServer.sinks().map(Device.init)
        try Terminal.print(rows, json: command.json) { rows in
            Format.table(["DEFAULT", "KIND", "NAME", "DESCRIPTION"], rows.map {
                [$0.isDefault || $0.isDefaultSink ? "*" : "", $0.kind, $0.name,
                 $0.description + ($0.isMonitor ? " (monitor of an output)" : "")]
            })
        }
    }

    /// One line of `devices`: a source, as the JSON always showed it, or a sink. Sinks came later,
    /// so the keys a source had keep their meaning (`isDefault`: the default source) and the new
    /// ones are added: `kind` and `isDefaultSink`.
    struct Device: Encodable {
        var name: String
        var description: String
        var isDefault: Bool
        var isMonitor: Bool
        var kind: String
        var isDefaultSink: Bool

        init(_ source: AudioSource) {
            (name, description, isDefault, isMonitor, kind, isDefaultSink) =
                (source.name, source.description, source.isDefault, source.isMonitor, "source", false)
        }

        init(_ sink: AudioSink) {
            (name, description, isDefault, isMonitor, kind, isDefaultSink) =
                (sink.name, sink.description, false, false, "sink", sink.isDefault)
        }
    }
}
