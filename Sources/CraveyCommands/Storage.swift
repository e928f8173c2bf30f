import ArgumentParser
import CraveyCore

struct Storage: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show how much room the library takes, by type and purpose.")

    @OptionGroup var options: LibraryOptions
    @Flag(help: "Print the report as JSON.") var json = false

    func run() throws {
        try Terminal.print(try options.open().storage.report(), json: json) { report in
            var lines = ["\(report.recordings) recording\(report.recordings == 1 ? "" : "s"), \(report.totalSize) (\(report.totalBytes) bytes)"]
            lines += report.byType.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" }
            lines += report.byPurpose.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" }
            return lines.joined(separator: "\n")
        }
    }
}
