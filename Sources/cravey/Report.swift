import ArgumentParser
import CraveyKit
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
            if json { return try Terminal.printJSON(recordings) }
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

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that the library's entries and files agree; --repair fixes what it finds.",
        discussion: """
            Finds entries whose file is missing, files with no entry (a recording cut off by a \
            crash, for example), thumbnails with no entry, size mismatches and interrupted \
            deletions. --repair registers playable orphan files as recordings titled \
            "Recovered <date>", removes entries whose media is gone, fixes sizes and removes \
            orphan thumbnails. Unplayable fragments are deleted only with --delete-unplayable.
            Exits 0 when the library is healthy (or was repaired), 1 when problems remain.
            """)

    @OptionGroup var options: LibraryOptions
    @Flag(help: "Repair what was found.") var repair = false
    @Flag(help: "With --repair, also delete orphan files that cannot be played.") var deleteUnplayable = false
    @Flag(help: "Print the report as JSON.") var json = false

    func validate() throws {
        if deleteUnplayable && !repair { throw ValidationError("--delete-unplayable goes with --repair.") }
    }

    func run() async throws {
        try await reportingErrors {
            let library = try options.open()
            let report = try DoctorUseCase(library: library).execute(repair: repair, deleteUnplayable: deleteUnplayable)
            if json {
                try Terminal.printJSON(report)
            } else {
                Terminal.output(Self.describe(report, repaired: repair))
            }
            let after = repair ? try DoctorUseCase(library: library).execute() : report
            if !after.isHealthy { throw ExitCode(1) }
        }
    }

    static func describe(_ report: DoctorUseCase.Report, repaired: Bool) -> String {
        var lines: [String] = []
        for row in report.missingFiles { lines.append("missing file: \"\(row.title)\" (\(row.id.uuidString.lowercased().prefix(8))) expects \(row.filePath)") }
        for row in report.unsafePaths { lines.append("unsafe path: \"\(row.title)\" (\(row.id.uuidString.lowercased().prefix(8))) points outside the library: \(row.filePath)") }
        for orphan in report.orphanFiles {
            let state = orphan.playable ? "playable, \(Format.duration(orphan.duration ?? 0))" : "cannot be played"
            lines.append("file with no entry: \(orphan.path) (\(FileStorageManager.formatBytes(orphan.bytes)), \(state))")
        }
        for path in report.orphanThumbnails { lines.append("thumbnail with no entry: \(path)") }
        for mismatch in report.sizeMismatches { lines.append("size mismatch: \(mismatch.filePath) is \(mismatch.actual) bytes, the entry says \(mismatch.recorded)") }
        for path in report.interruptedDeletions { lines.append("interrupted deletion: \(path)") }
        if lines.isEmpty { lines.append("The library is healthy.") }
        if repaired {
            lines.append(contentsOf: report.repairs.map { "repaired: \($0)" })
        } else if !report.isHealthy {
            lines.append("Run `cravey doctor --repair` to fix these.")
        }
        return lines.joined(separator: "\n")
    }
}
