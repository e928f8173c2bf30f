import ArgumentParser
import CraveyCore

struct Storage: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show how much room the library takes, by type and purpose.")

    @OptionGroup var options: LibraryOptions
    @Flag(help: "Print the report as JSON.") var json = false

    func run() throws {
        let report = try StorageReportUseCase(library: try options.open()).execute()
        if json { return try Terminal.printJSON(report) }
        var lines = ["\(report.recordings) recording\(report.recordings == 1 ? "" : "s"), \(report.totalSize) (\(report.totalBytes) bytes)"]
        lines += report.byType.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" }
        lines += report.byPurpose.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" }
        try Terminal.output(lines.joined(separator: "\n"))
    }
}
