import ArgumentParser
import CraveyCore

extension RecordingSort: ExpressibleByArgument {}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the recordings in the library, newest first.")

    @OptionGroup var options: LibraryOptions

    @Option(help: "Order: recent, most-played or title (default: the list.sort setting, else recent).")
    var sort: RecordingSort?

    @Flag(help: "Print a JSON array of recordings.")
    var json = false

    func run() throws {
        let recordings = try options.open().recordings(sortedBy: sort ?? Settings.current.listSort)
        try Terminal.printRecordings(recordings, json: json, columns: [
            "ID": Format.shortID, "TYPE": \.type.rawValue, "TITLE": { Format.visible($0.title) },
            "DATE": { Format.date($0.createdAt) }, "DURATION": { Format.duration($0.duration) },
            "PLAYS": { String($0.playCount) },
        ])
    }
}
