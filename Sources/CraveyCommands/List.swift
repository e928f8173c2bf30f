import ArgumentParser
import CraveyCore

extension RecordingSort: ExpressibleByArgument {}

struct List: SettingsReading {
    static let configuration = CommandConfiguration(abstract: "List the recordings in the library, newest first.")

    @OptionGroup var options: LibraryOptions

    @Option(help: "Order: recent, most-played or title (default: the list.sort setting, else recent).")
    var sort: RecordingSort?

    @Option(help: "Only the recordings tagged so (`cravey tag`).", completion: Completion.tags)
    var tag: String?

    @Flag(help: "Print a JSON array of recordings.")
    var json = false

    func run(with settings: Settings) throws {
        let recordings = try options.open().recordings(sortedBy: sort ?? settings.listSort, tagged: tag)
        try Terminal.printRecordings(recordings, json: json, tagged: tag, columns: [
            "ID": Format.shortID, "TYPE": \.type.rawValue, "TITLE": { Format.visible($0.title) },
            "DATE": { Format.date($0.createdAt) }, "DURATION": { Format.duration($0.duration) },
            "PLAYS": { String($0.playCount) }, "TAGS": { Format.visible($0.tags.joined(separator: " ")) },
        ])
    }
}
