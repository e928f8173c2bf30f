import CraveyCommands
import CraveyKit
import Foundation
import CraveyTerminal

extension Settings {
    /// What the terminal app reads of the settings, handed to it as a value by the command that
    /// opens it (the home screen, a play, a recording's or an import's words).
    var app: AppSettings {
        AppSettings(showsTitles: showsTitles, loudness: loudness, transcribesNewClips: transcribesNewClips,
                    transcriptionLanguage: transcriptionLanguage,
                    remindersFolder: ReminderUnits.folder(in: url.deletingLastPathComponent().deletingLastPathComponent()),
                    program: CommandRoute.installed(.cravey))
    }
}
