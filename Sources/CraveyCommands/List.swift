import ArgumentParser
import CraveyCore

extension RecordingSort: ExpressibleByArgument {}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the recordings in the library, newest first.")

    @OptionGroup var options: LibraryOptions

    @Option(help: "Order: recent, most-played or title.")
    var sort: RecordingSort = .recent

    @Flag(help: "Print a JSON array of recordings.")
    var json = false

    func run() throws {
        let recordings = try FetchRecordingsUseCase(library: try options.open()).execute(sortedBy: sort)
        if json { return try Terminal.printJSON(recordings) }
        if recordings.isEmpty {
            Terminal.diagnostic("No recordings yet. Record one with `cravey record`.")
            return
        }
        try Terminal.output(Format.table(
            ["ID", "TYPE", "TITLE", "DATE", "DURATION", "PLAYS"],
            recordings.map { recording in
                [String(recording.id.uuidString.lowercased().prefix(8)), recording.type.rawValue,
                 recording.title, Format.date(recording.createdAt),
                 Format.duration(recording.duration), String(recording.playCount)]
            }))
    }
}
