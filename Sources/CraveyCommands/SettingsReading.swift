import ArgumentParser

/// A command whose choices a setting may make (a list's order, a backup's encryption). The
/// settings are read once, by each executable's main, and handed to the command as a value
/// (``Settings/run(_:)``): no command reads the file, or a global, itself.
///
/// Such a command has no `run()` of its own: ArgumentParser's default, which shows the help, is
/// what a caller that does not hand it settings gets.
public protocol SettingsReading: ParsableCommand {
    /// Runs the command with `settings`, what the main read.
    mutating func run(with settings: Settings) throws
}

/// A ``SettingsReading`` command that runs on a task (a play's loudness, a recording's purpose,
/// the home screen's settings), as `AsyncParsableCommand` is to `ParsableCommand`.
public protocol AsyncSettingsReading: ParsableCommand {
    /// Runs the command with `settings`, what the main read.
    mutating func run(with settings: Settings) async throws
}
