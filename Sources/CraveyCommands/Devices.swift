import ArgumentParser
import CraveyCore

public struct Devices: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "List the sound server's audio sources (pass a name to `record --device`).")

    @Flag(help: "Print a JSON array of sources.")
    public var json = false

    public init() {}

    public func run() async throws {
        try await MediaCommands.runner.devices(self)
    }
}
