import ArgumentParser
import CraveyCommands
import CraveyKit
import CraveyTerminal
import Foundation

/// Runs `cravey play` (its command line is ``PlayOptions``, which `cravey` shows in its help).
struct Play: AsyncSettingsReading {
    static let configuration = PlayOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: PlayOptions

    func run(with settings: Settings) async throws {
        let library = try command.options.open()
        let recording = try library.recording(matching: command.id)
        let player = Player(library: library, flags: command.playback.player, settings: settings.app, json: command.json)
        if command.open {
            try await player.openInDesktop(recording)
        } else {
            try await player.play(recording)
        }
    }
}

/// Runs `cravey quickplay N` (its command line is ``QuickPlayOptions``); without N it lists, as
/// `cravey quickplay` does.
struct QuickPlayMedia: AsyncSettingsReading {
    static let configuration = QuickPlayOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: QuickPlayOptions

    func run(with settings: Settings) async throws {
        guard command.number != nil else { return try command.list() }
        let (library, recording) = try command.chosen()
        try await Player(library: library, flags: command.playback.player, settings: settings.app, json: command.json)
            .play(recording)
    }
}

extension PlaybackFlags {
    /// The flags as the player takes them: a plain value, without the parser's.
    var player: PlayerFlags {
        PlayerFlags(from: from, noCount: noCount, noNormalize: noNormalize, device: device, noVideo: noVideo, speed: speed,
                    skipSilence: skipSilence)
    }
}
