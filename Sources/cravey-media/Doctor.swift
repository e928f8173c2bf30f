import ArgumentParser
import CraveyCommands
import CraveyKit

/// Runs `cravey doctor` (its command line is ``DoctorOptions``, which `cravey` shows in its help).
struct Doctor: AsyncParsableCommand {
    static let configuration = DoctorOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: DoctorOptions

    func run() async throws {
        let library = try command.options.open()
        let report = try await DoctorUseCase(library: library).execute(repair: command.repair, deleteUnplayable: command.deleteUnplayable)
        try Terminal.print(report, json: command.json) { describe($0, repaired: command.repair) }
        let after = command.repair ? try await DoctorUseCase(library: library).execute() : report
        if !after.isHealthy { throw ExitCode(1) }
    }

    func describe(_ report: DoctorUseCase.Report, repaired: Bool) -> String {
        var lines: [String] = []
        for row in report.missingFiles { lines.append("missing file: \"\(row.title)\" (\(row.id.uuidString.lowercased().prefix(8))) expects \(row.filePath)") }
        for row in report.unsafePaths { lines.append("unsafe path: \"\(row.title)\" (\(row.id.uuidString.lowercased().prefix(8))) points outside the library: \(row.filePath)") }
        for thumbnail in report.unsafeThumbnails { lines.append("unsafe thumbnail: \"\(thumbnail.title)\" (\(thumbnail.id.uuidString.lowercased().prefix(8))) points outside the library: \(thumbnail.thumbnailPath)") }
        for name in report.unreadableNames { lines.append("file name not UTF-8: \(name)") }
        for orphan in report.orphanFiles {
            let state = orphan.playable ? "playable, \(Format.duration(orphan.duration ?? 0))" : "cannot be played"
            lines.append("file with no entry: \(orphan.path) (\(FileStorageManager.formatBytes(orphan.bytes)), \(state))")
        }
        for path in report.orphanThumbnails { lines.append("thumbnail with no entry: \(path)") }
        for mismatch in report.sizeMismatches { lines.append("size mismatch: \(mismatch.filePath) is \(mismatch.actual) bytes, the entry says \(mismatch.recorded)") }
        for path in report.interruptedDeletions { lines.append("interrupted deletion: \(path)") }
        for path in report.interruptedImports { lines.append("interrupted import: \(path)") }
        if lines.isEmpty { lines.append("The library is healthy.") }
        if !repaired, !report.missingLoudness.isEmpty {
            let count = report.missingLoudness.count
            lines.append("loudness not measured yet: \(count) recording\(count == 1 ? "" : "s"); `cravey doctor --repair` measures \(count == 1 ? "it" : "them") (playing a clip once does too).")
        }
        if repaired {
            lines.append(contentsOf: report.repairs.map { "repaired: \($0)" })
            if report.measuredLoudness > 0 {
                let count = report.measuredLoudness
                lines.append("repaired: Measured the loudness of \(count) recording\(count == 1 ? "" : "s").")
            }
            lines.append(contentsOf: report.loudnessFailures)
        } else if !report.isHealthy {
            lines.append("Run `cravey doctor --repair` to fix these.")
        }
        // Titles and paths come from stored rows and file names: no control character reaches the terminal.
        return lines.map(Format.visible).joined(separator: "\n")
    }
}
