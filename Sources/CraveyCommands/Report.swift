import ArgumentParser
import CraveyCore
import Foundation

extension ExportRecordingsUseCase.Format: ExpressibleByArgument {}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export the library's metadata (not the media) as CSV or JSON.")

    @OptionGroup var options: LibraryOptions
    @Option(help: "csv (RFC 4180) or json.") var format: ExportRecordingsUseCase.Format
    @Option(help: ArgumentHelp("Write to this file (mode 0600) instead of stdout.", valueName: "path")) var output: String?

    func run() async throws {
        try await reportingErrors {
            let export = ExportRecordingsUseCase(library: try options.open())
            if let output {
                try export.execute(format: format, to: URL(fileURLWithPath: output))
                Terminal.diagnostic("Exported to \(output).")
            } else {
                FileHandle.standardOutput.write(try export.execute(format: format))
            }
        }
    }
}

struct Storage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show how much room the library takes, by type and purpose.")

    @OptionGroup var options: LibraryOptions
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            let report = try StorageReportUseCase(library: try options.open()).execute()
            if json { return try Terminal.printJSON(report) }
            var lines = ["\(report.recordings) recording\(report.recordings == 1 ? "" : "s"), \(report.totalSize) (\(report.totalBytes) bytes)"]
            lines += report.byType.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" }
            lines += report.byPurpose.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" }
            Terminal.output(lines.joined(separator: "\n"))
        }
    }
}

struct QuickPlay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quickplay",
        abstract: "List Quick Play: the 3 most played recordings.")

    @OptionGroup var options: LibraryOptions
    @Flag(help: "Print a JSON array of recordings.") var json = false

    func run() async throws {
        try await reportingErrors {
            let recordings = try FetchRecordingsUseCase(library: try options.open()).quickPlay()
            if json { return Terminal.printJSON(recordings) }
            if recordings.isEmpty {
                Terminal.diagnostic("No recordings yet. Record one with `cravey record`.")
                return
            }
            Terminal.output(Format.table(
                ["ID", "TITLE", "PLAYS", "LAST PLAYED", "DURATION"],
                recordings.map {
                    [String($0.id.uuidString.lowercased().prefix(8)), $0.title, String($0.playCount),
                     $0.lastPlayedAt.map(Format.date) ?? "never", Format.duration($0.duration)]
                }))
        }
    }
}
