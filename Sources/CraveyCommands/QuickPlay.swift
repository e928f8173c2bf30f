import ArgumentParser
import CraveyCore

struct QuickPlay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quickplay",
        abstract: "List Quick Play: the 3 most played recordings.")

    @OptionGroup var options: LibraryOptions
    @Flag(help: "Print a JSON array of recordings.") var json = false

    func run() throws {
        try Terminal.printRecordings(FetchRecordingsUseCase(library: try options.open()).quickPlay(), json: json, columns: [
            "ID": Format.shortID, "TITLE": { Format.visible($0.title) }, "PLAYS": { String($0.playCount) },
            "LAST PLAYED": { $0.lastPlayedAt.map(Format.date) ?? "never" },
            "DURATION": { Format.duration($0.duration) },
        ])
    }
}
