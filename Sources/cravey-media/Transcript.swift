import ArgumentParser
import CraveyCommands
import CraveyKit
import Foundation

/// Runs `cravey transcript` (its command line is ``TranscriptOptions``, which `cravey` shows in
/// its help): prints a clip's stored words in the format asked for.
struct TranscriptMedia: AsyncParsableCommand {
    static let configuration = TranscriptOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: TranscriptOptions

    func run() async throws {
        let library = try command.options.open()
        let recording = try library.recording(matching: command.id)
        guard let transcript = library.transcript(of: recording) else {
            // Without the transcriber, how to add it (69); with it, how to make this one (66).
            _ = try Transcriber.installed()
            throw CraveyError(.notFound, "\"\(recording.title)\" has no transcript yet.", advice: .transcribe(String(recording.id.description.prefix(8))))
        }
        // The language heard (or set: transcribe.language), beside the words; JSON holds it.
        if !command.json && command.format != .json && !transcript.language.isEmpty {
            Terminal.diagnostic("Language: \(transcript.language)")
        }
        try Terminal.write(Data(command.text(of: transcript).utf8))
    }
}
