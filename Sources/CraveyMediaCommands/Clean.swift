import ArgumentParser
import CraveyCommands
import CraveyKit
import CraveyTerminal
import Foundation

/// Runs `cravey clean` (its command line is ``CleanOptions``, which `cravey` shows in its help).
struct Clean: AsyncSettingsReading {
    static let configuration = CleanOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: CleanOptions

    /// What `--json` prints: the figures (a floor of digital silence is null), whether the
    /// cleaned clip was kept, and the recording as it now is.
    struct Report: Encodable {
        var id: String
        var noiseSample: [Double]
        var noiseFloorBefore: Double?
        var noiseFloorAfter: Double?
        var speechLevelChange: Double?
        var filters: String
        var kept: Bool
    }

    func run(with settings: Settings) async throws {
        let library = try command.options.open()
        let recording = try library.recording(matching: command.id)
        if !command.dryRun, !command.yes, !Terminal.isTerminal(0) {
            throw CraveyError(.invalidInput, "Refusing to clean without confirmation: stdin is not a terminal. Add --yes to keep the cleaned clip, or --dry-run to see the figures only.")
        }
        let hadWords = library.transcripts.transcript(of: recording) != nil
        Terminal.diagnostic("Cleaning \"\(Format.visible(recording.title))\"...")
        let cleanup = try await library.shaping.cleanNoise(of: recording, asked: library.version(of: recording))
        Terminal.diagnostic(CleanListening.figures(cleanup))
        var kept: Recording?
        if command.dryRun {
            library.shaping.discard(cleanup)
            Terminal.diagnostic("Nothing was changed (--dry-run).")
        } else if command.yes {
            kept = try await library.shaping.keep(cleanup)
            Terminal.diagnostic("Kept the cleaned \"\(Format.visible(kept!.title))\".")
        } else {
            kept = try await CleanListening(library: library, cleanup: cleanup, sink: command.device,
                                          loudness: settings.app.loudness).decide()
        }
        if command.json {
            let finite = { (value: Double) in value.isFinite ? value : nil }
            try Terminal.printJSON(Report(id: recording.id.description,
                                          noiseSample: [cleanup.noiseSample.lowerBound, cleanup.noiseSample.upperBound],
                                          noiseFloorBefore: finite(cleanup.noiseFloorBefore), noiseFloorAfter: finite(cleanup.noiseFloorAfter),
                                          speechLevelChange: cleanup.speechLevelChange, filters: cleanup.filters, kept: kept != nil))
        } else if let kept {
            try Terminal.output(kept.id.description)
        }
        // The words said were the old sound's and went with it: heard again from the new one (as
        // a new clip's are), when the clip had them and the transcriber is installed.
        if let kept, hadWords {
            let signals = StopOnSignals {}
            defer { signals.cancel() }
            await AutoTranscription.follow(kept, in: library, settings: settings.app, signals: signals)
        }
    }
}
