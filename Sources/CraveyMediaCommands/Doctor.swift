import ArgumentParser
import CraveyCommands
import CraveyKit

/// Runs `cravey doctor` (its command line is ``DoctorOptions``, which `cravey` shows in its help).
struct Doctor: AsyncParsableCommand {
    static let configuration = DoctorOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: DoctorOptions

    func run() async throws {
        let library = try command.options.open(creating: command.repair)
        let report = command.repair ? try await library.repair(deletingUnplayable: command.deleteUnplayable) : try await library.examine()
        try Terminal.print(report, json: command.json) { describe($0, repaired: command.repair) }
        let after = command.repair ? try await library.examine() : report
        if !after.isHealthy {
            if command.repair {
                Terminal.diagnostic("cravey: after the repair the library still has problems:\n"
                                    + after.problems.map { "  " + Format.visible($0) }.joined(separator: "\n"))
            }
            throw ExitCode(1)
        }
    }

    func describe(_ report: RecordingLibrary.RepairReport, repaired: Bool) -> String {
        var lines = report.problems
        if lines.isEmpty { lines.append("The library is healthy.") }
        if !repaired, !report.findings(.missingCopy).isEmpty {
            let count = report.findings(.missingCopy).count
            lines.append("own copies not kept yet: \(count) recording\(count == 1 ? "" : "s") (made before clips kept one); `cravey doctor --repair` writes \(count == 1 ? "it" : "them"), so that a damaged database costs none of their words.")
        }
        if !repaired, report.unmeasuredLoudness > 0 {
            let count = report.unmeasuredLoudness
            lines.append("loudness not measured yet: \(count) recording\(count == 1 ? "" : "s"); `cravey doctor --repair` measures \(count == 1 ? "it" : "them") (playing a clip once does too).")
        }
        if !repaired, report.unmeasuredWaveforms > 0 {
            let count = report.unmeasuredWaveforms
            lines.append("waveform not made yet: \(count) recording\(count == 1 ? "" : "s"); `cravey doctor --repair` makes \(count == 1 ? "it" : "them") (`cravey waveform` does too, for one clip).")
        }
        if repaired {
            lines.append(contentsOf: report.repairs.map { "repaired: \($0)" })
            if report.measuredLoudness > 0 {
                let count = report.measuredLoudness
                lines.append("repaired: Measured the loudness of \(count) recording\(count == 1 ? "" : "s").")
            }
            if report.measuredWaveforms > 0 {
                let count = report.measuredWaveforms
                lines.append("repaired: Made the waveform of \(count) recording\(count == 1 ? "" : "s").")
            }
            lines.append(contentsOf: report.loudnessFailures)
        } else if report.databaseIsDamaged {
            let database = command.options.libraryURL.appendingPathComponent("library.sqlite").path
            lines.append(Messages.words(for: .moveDamagedDatabase(database)))
        } else if report.problems.count > report.findings(.damagedMedia).count {
            lines.append("Run `cravey doctor --repair` to fix these.")
        }
        if !report.findings(.damagedMedia).isEmpty {
            lines.append("Damaged media is not repaired: what decodes still plays; `cravey delete` the clip, then `cravey restore` a backup that holds it whole, brings it back.")
        }
        // Titles and paths come from stored rows and file names: no control character reaches the terminal.
        return lines.map(Format.visible).joined(separator: "\n")
    }
}
