import Foundation

/// The settings the terminal app reads (the home screen, the player, the words heard after a
/// save): a value the command that opens it hands down, read from the settings file once by
/// `cravey-media` (CraveyCommands' `Settings`), so that nothing here reads a file or a global.
package struct AppSettings: Sendable, Equatable {
    /// Whether the desktop (media controls, notification, a video's window) is shown a playing
    /// clip's title (`desktop.show-titles`); the terminal's own line shows it either way.
    package var showsTitles: Bool
    /// The loudness clips play at, in LUFS (`play.loudness`).
    package var loudness: Double
    /// Whether a new clip's words are heard once it is saved (`transcribe.auto`), when the
    /// transcriber is installed.
    package var transcribesNewClips: Bool
    /// The language the transcriber is told to hear; nil lets it tell (`transcribe.language`).
    package var transcriptionLanguage: String?
    /// The user's systemd folder the reminders' units are written to (`$XDG_CONFIG_HOME/systemd/user`,
    /// beside cravey's settings' folder), as `cravey remind` writes them.
    package var remindersFolder: URL
    /// The `cravey` a reminder's service runs.
    package var program: String

    package init(showsTitles: Bool, loudness: Double, transcribesNewClips: Bool, transcriptionLanguage: String?, remindersFolder: URL,
                 program: String) {
        (self.showsTitles, self.loudness) = (showsTitles, loudness)
        (self.transcribesNewClips, self.transcriptionLanguage) = (transcribesNewClips, transcriptionLanguage)
        (self.remindersFolder, self.program) = (remindersFolder, program)
    }
}
