import ArgumentParser
import CraveyCommands
import CraveyKit
import Foundation

/// Runs `cravey waveform` for a clip whose waveform is not stored yet (`cravey` writes a stored
/// one itself and hands the rest over): makes it from the clip's media, stores it, and writes it
/// as ``WaveformOptions`` asks.
struct WaveformMedia: AsyncParsableCommand {
    static let configuration = WaveformOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: WaveformOptions

    func run() async throws {
        let library = try command.options.open()
        let recording = try library.recording(matching: command.id)
        guard let waveform = try await library.analysis.waveform(of: recording) else {
            throw CraveyError(.invalidInput, "\"\(recording.title)\" has no sound, so it has no waveform.")
        }
        try command.write(waveform, of: recording, in: library)
    }
}
