import ArgumentParser
import CraveyCore

struct QuickPlay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quickplay",
        abstract: "List Quick Play: the 3 most played recordings.")

    @OptionGroup var options: LibraryOptions
    @Flag(help: "Print a JSON array of recordings.") var json = false

    func run() throws {
        let recordings = try FetchRecordingsUseCase(library: try options.open()).quickPlay()
        if json { return try Terminal.printJSON(recordings) }
        if recordings.isEmpty {
            Terminal.diagnostic("No recordings yet. Record one with `cravey record`.")
            return
        }
        try Terminal.output(Format.table(
            ["ID", "TITLE", "PLAYS", "LAST PLAYED", "DURATION"],
            recordings.map {
                [String($0.id.uuidString.lowercased().prefix(8)), $0.title, String($0.playCount),
                 $0.lastPlayedAt.map(Format.date) ?? "never", Format.duration($0.duration)]
            }))
    }
}
