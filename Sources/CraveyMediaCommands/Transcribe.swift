import ArgumentParser
import CraveyCommands
import CraveyKit
import Foundation

/// Runs `cravey transcribe` (its command line is ``TranscribeOptions``, which `cravey` shows in
/// its help): one clip, or every clip with sound and no transcript (`--all`), the progress
/// redrawn on a terminal.
struct Transcribe: AsyncSettingsReading {
    static let configuration = TranscribeOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: TranscribeOptions

    func run(with settings: Settings) async throws {
        let library = try command.options.open()
        // Before any decoding: without the transcriber, say how to add it (exit 69).
        let transcriber = try Transcriber.installed()
        let clips: [Recording]
        if let id = command.id {
            clips = [try library.recording(matching: id)]
        } else {
            clips = try library.recordings(sortedBy: .recent).filter { library.transcripts.transcript(of: $0) == nil }
        }
        for (index, recording) in clips.enumerated() {
            let name = "\"\(Format.visible(recording.title))\""
            let counted = clips.count > 1 ? " (\(index + 1) of \(clips.count))" : ""
            let duration = recording.duration
            let progress: @Sendable (Double) -> Void = { seconds in
                guard Terminal.canRedraw, let percent = Format.percent(heard: seconds, of: duration) else { return }
                Terminal.diagnostic("\r\u{1B}[KHearing \(name)\(counted): \(percent)%", terminator: "")
            }
            progress(0)
            let transcript: Transcript
            do {
                transcript = try await library.transcripts.transcribe(recording, with: transcriber, language: settings.transcriptionLanguage, progress: progress)
            } catch let error as CraveyError where command.all && error.kind == .invalidInput {
                if Terminal.canRedraw { Terminal.diagnostic("\r\u{1B}[K", terminator: "") }
                Terminal.diagnostic("Skipped \(name): it has no sound (no audio, or only silence).")
                continue
            }
            if Terminal.canRedraw { Terminal.diagnostic("\r\u{1B}[K", terminator: "") }
            let words = transcript.words.count
            Terminal.diagnostic("Heard \(words) word\(words == 1 ? "" : "s") in \(name)\(counted)\(transcript.language.isEmpty ? "" : " (\(Format.visible(transcript.language)))").")
        }
        if clips.isEmpty { Terminal.diagnostic("Every clip has its transcript.") }
    }
}
