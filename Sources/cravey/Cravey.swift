import ArgumentParser
import CraveyKit

@main
struct Cravey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record short motivational clips and keep them in a private, local library.",
        discussion: """
            Everything stays on this machine. The library folder is --library PATH, else \
            $CRAVEY_LIBRARY, else $XDG_DATA_HOME/cravey (~/.local/share/cravey).

            Exit codes: 0 ok, 64 invalid input, 65 undecodable media, 66 unknown id or missing \
            file, 69 no sound server or device, 73 cannot write, 1 anything else.
            """,
        version: "0.1.0",
        subcommands: [Record.self, List.self, Info.self, QuickPlay.self, Edit.self, Delete.self, DeleteAll.self,
                      Export.self, Storage.self, Doctor.self, Devices.self]
    )
}
