import ArgumentParser
import CraveyCommands
import CraveyKit
import Foundation

/// Runs `cravey trim` (its command line is ``TrimOptions``, which `cravey` shows in its help).
struct Trim: AsyncParsableCommand {
    static let configuration = TrimOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: TrimOptions

    /// What would be cut, as `--dry-run --json` prints it.
    struct Plan: Encodable {
        var id: String
        var duration: Double
        var start: Double
        var end: Double
        var cutBefore: Double
        var cutAfter: Double
        /// With --auto: the clip's noise floor and the threshold a sound reaches (dBFS).
        var noiseFloor: Double?
        var threshold: Double?
    }

    func run() async throws {
        let library = try command.options.open()
        let recording = try library.recording(matching: command.id)
        // The clip as the question shows it: the cut is made only while it is still so.
        let asked = library.version(of: recording)
        var proposal: TrimProposal?
        if command.auto {
            proposal = try await library.shaping.proposedTrim(of: recording)
            guard proposal != nil else {
                throw CraveyError(.invalidInput, "\"\(recording.title)\" has no sound above its own noise: --auto finds nothing to keep.")
            }
        }
        let start = command.start?.seconds ?? proposal?.start ?? 0
        let end = command.end?.seconds ?? proposal?.end ?? recording.duration
        let plan = Plan(id: recording.id.description, duration: recording.duration, start: start, end: end,
                        cutBefore: start, cutAfter: max(recording.duration - end, 0),
                        noiseFloor: proposal?.noiseFloor, threshold: proposal?.threshold)
        if proposal?.keepsAll(of: recording.duration) != true || command.start != nil || command.end != nil {
            try library.checkTrim(of: recording, from: start, to: end)  // a dry run refuses what the cut refuses
        }
        Terminal.diagnostic(Self.describe(plan, of: recording))
        if command.dryRun {
            return try Terminal.print(plan, json: command.json) { "\(ClipTime.text($0.start)) \(ClipTime.text($0.end))" }
        }
        if proposal?.keepsAll(of: recording.duration) == true, command.start == nil, command.end == nil {
            return Terminal.diagnostic("Nothing to cut: the sound fills \"\(Format.visible(recording.title))\".")
        }
        guard try Terminal.confirm("Cut \"\(Format.visible(recording.title))\"? The cut parts cannot be recovered.", yes: command.yes,
                                   action: "cut", declined: "Nothing was cut.") else { return }
        let trimmed = try await library.shaping.trim(recording, from: start, to: end, asked: asked)
        Terminal.diagnostic("Trimmed \"\(Format.visible(trimmed.title))\": \(ClipTime.text(recording.duration)) -> \(ClipTime.text(trimmed.duration)).")
        try Terminal.print(trimmed, json: command.json) { $0.id.description }
    }

    /// "Keeping 0:00.850-0:04.150 of 0:05.500: cutting 0.850 s before and 1.350 s after." and,
    /// with --auto, how the cut was found.
    static func describe(_ plan: Plan, of recording: Recording) -> String {
        var text = "Keeping \(ClipTime.text(plan.start))-\(ClipTime.text(plan.end)) of \(ClipTime.text(plan.duration)) of \"\(Format.visible(recording.title))\": cutting "
            + String(format: "%.3f s before and %.3f s after.", plan.cutBefore, plan.cutAfter)
        if let floor = plan.noiseFloor, let threshold = plan.threshold {
            text += String(format: " (--auto: a sound reaches %.0f dBFS, over the clip's noise floor of %.0f dBFS: 12 dB over it, at least -70, at most halfway to its loudest peak; 150 ms kept on each side.)",
                           threshold, floor)
        }
        return text
    }
}
