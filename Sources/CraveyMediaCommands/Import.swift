import ArgumentParser
import CraveyCommands
import CraveyKit
import CraveyTerminal
import Foundation

/// Runs `cravey import` (its command line is ``ImportOptions``, which `cravey` shows in its help).
struct Import: AsyncSettingsReading {
    static let configuration = ImportOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: ImportOptions

    func run(with settings: Settings) async throws {
        // No --title: the file's name tells the clip apart; `--title ""` asks for the automatic one.
        let metadata = try command.clipMetadata(with: settings)
        let source = URL(fileURLWithPath: command.file)
        let library = try command.options.open(creating: true)
        // Ctrl-C (or SIGTERM) stops the import and leaves nothing behind: exit 130. A clip saved
        // an instant before is left to finish and print, exit 0. The sound decoded is held for
        // the words when they will be heard: better from it than from the clip's AAC.
        let sound = AutoTranscription.transcriber(settings.app) == nil ? nil : HeldSound()
        let work = Task { try await Importer.importFile(at: source, into: library.store, metadata: metadata, holding: sound) }
        let signals = StopOnSignals { work.cancel() }
        defer { signals.cancel() }
        let recording: Recording
        do {
            recording = try await work.value
        } catch is CancellationError {
            Terminal.diagnostic("cravey: import stopped; nothing was stored.")
            Foundation.exit(130)
        }
        Terminal.diagnostic("Imported \"\(Format.visible(recording.title))\" (\(recording.type.rawValue), \(Format.duration(recording.duration)), \(ByteCount.text(recording.fileSize))).")
        try Terminal.printSaved(recording, json: command.json)
        // Imported durably first: its words follow, and Ctrl-C now skips them alone.
        await AutoTranscription.follow(recording, in: library, settings: settings.app, from: sound, signals: signals)
    }
}
