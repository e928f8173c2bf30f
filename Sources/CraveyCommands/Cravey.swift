import ArgumentParser
import CraveyCore

public struct Cravey: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cravey",
        abstract: "Record short motivational clips and keep them in a private, local library.",
        discussion: """
            Everything stays on this machine. The library folder is --library PATH (before or \
            after the command), else $CRAVEY_LIBRARY, else $XDG_DATA_HOME/cravey \
            (~/.local/share/cravey).

            Exit codes: 0 ok, 64 invalid input, 65 undecodable media, 66 unknown id or missing \
            file, 69 no sound server or device, 73 cannot write, 1 anything else.
            """,
        version: "0.1.0",
        subcommands: [Record.self, List.self, Info.self, QuickPlay.self, Edit.self, Delete.self, DeleteAll.self,
                      Import.self, Export.self, Storage.self, Doctor.self, Devices.self]
    )

    public init() {}

    /// The arguments after the executable's name, with a global `--library PATH` given before the
    /// command moved after it, where the command's own option reads it.
    nonisolated(unsafe) public static var arguments: [String] = []

    /// Parses and runs `arguments` (the process's own when nil).
    public static func run(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) async {
        self.arguments = movingGlobalOptions(arguments)
        await main(self.arguments)
    }

    static func movingGlobalOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var rest = arguments[...]
        while let first = rest.first {
            if first == "--library", rest.count >= 2 {
                leading += rest.prefix(2)
                rest = rest.dropFirst(2)
            } else if first.hasPrefix("--library=") {
                leading.append(first)
                rest = rest.dropFirst()
            } else {
                break
            }
        }
        guard !leading.isEmpty, let command = rest.first else { return arguments }
        return [command] + leading + rest.dropFirst()
    }
}
