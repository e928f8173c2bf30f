import ArgumentParser
import CraveyCommands
import CraveyKit
import CraveyTerminal

/// Runs `cravey home`, which `cravey` alone opens on a terminal (its command line and manual are
/// ``HomeOptions``).
struct Home: AsyncSettingsReading {
    static let configuration = HomeOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: HomeOptions

    func run(with settings: Settings) async throws {
        try await HomeScreen.run(try command.options.open(), settings: settings.app)
    }
}
