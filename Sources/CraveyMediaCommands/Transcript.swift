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
        guard let transcript = library.transcripts.transcript(of: recording) else {
            // Without the transcriber, how to add it (69); with it, how to make this one (66).
            _ = try Transcriber.installed()
            throw CraveyError(.notFound, "\"\(recording.title)\" has no transcript yet.", advice: .transcribe(String(recording.id.description.prefix(8))))
        }
        if command.edit { return try await correct(recording, in: library) }
        // The language heard (or set: transcribe.language), beside the words; JSON holds it.
        if !command.json && command.format != .json && !transcript.language.isEmpty {
            Terminal.diagnostic("Language: \(Format.visible(transcript.language))")
        }
        try Terminal.write(Data(command.text(of: transcript).utf8))
    }

    /// `--edit`: the words in the person's editor, stored as corrected (nothing when the editor
    /// fails, or leaves the file empty or unchanged).
    private func correct(_ recording: Recording, in library: RecordingLibrary) async throws {
        let title = Format.visible(recording.title)
        // On a thread of its own: the person may keep the editor open for as long as they like.
        let corrected = try await onDedicatedThread(named: "cravey.edit") { [library, recording] in
            try library.transcripts.correct(recording, edit: Self.edit)
        }
        guard let corrected else { return Terminal.diagnostic("The words of \"\(title)\" were left as they were.") }
        let count = corrected.words.count
        Terminal.diagnostic("Corrected the words of \"\(title)\" (\(count) word\(count == 1 ? "" : "s")).")
    }

    /// Opens `file` in the person's editor (VISUAL, else EDITOR, else vi) on this terminal and
    /// waits for it: true when it ended well. Blocks: run it on a thread of its own.
    private static func edit(_ file: URL) throws -> Bool {
        let environment = ProcessInfo.processInfo.environment
        let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        // As git runs it: through the shell, so that "code --wait" works; the file's path
        // is its argument, never the words.
        let editing: ChildProcess
        do {
            editing = try ChildProcess("/bin/sh", ["-c", editor + " \"$1\"", editor, file.path])
        } catch {
            throw CraveyError(.unavailable, "Cannot run the editor (\(Format.visible(editor))): \(error). Set EDITOR to one.")
        }
        let ended = editing.wait()
        guard ended == .exit(0) else {
            Terminal.diagnostic("The editor (\(Format.visible(editor))) did not end well (\(ended)); nothing was changed.")
            return false
        }
        return true
    }
}
