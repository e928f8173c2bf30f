import CraveyKit
import Foundation

/// What happens to the home screen: what a person does, and what the library and the media say
/// back. ``HomeState/apply(_:)`` decides what each does.
enum HomeEvent {
    /// A key, a click, the wheel or a paste.
    case key(Key)
    /// Enter with more keys after it, read at once or within 30 ms, while a line is typed: a
    /// paste on a terminal without bracketed paste (a person does not type a key and the next
    /// within a read).
    case pastedLineBreak
    /// The keys read at once are all handled: the filter they typed is read once.
    case keysHandled
    /// The question on the status line is drawn: the keys read from now on answer it.
    case drawn
    /// The rows are drawn and no key waits: the filter's matches are counted.
    case idle
    /// The library changed (this process's change, or another's).
    case libraryChanged
    /// The terminal has this size now (SIGWINCH, back from Ctrl-Z); `paused` when what played or
    /// recorded was paused meanwhile.
    case resized(rows: Int, columns: Int, paused: Bool)
    /// q, Ctrl-C, SIGTERM or SIGHUP.
    case quit
    /// Something landed in the sync folder (or the screen opened on a library that syncs).
    case syncLanded
    /// A sync (``SyncWork``) ended at this time.
    case synced(HomeSync.Outcome, at: Date)
    /// A change's send to the sync folder failed at this time (the change is kept).
    case unsent(CraveyError, at: Date)
    /// Something to say that came from no key: a refusal of the shell's, or a warning.
    case said(HomeMessage)

    /// A play started: the clip, its length and where it is, and a video's window that failed.
    case playStarted(Recording, duration: Double, PlaybackEvent, counted: Bool, videoProblem: CraveyError?)
    case played(PlaybackEvent)
    /// A play ended: `current` when it is the one on the player line.
    case playEnded(Recording, Result<PlaybackSummary, any Error>, current: Bool)
    case playFailed(any Error)

    /// A recording is about to start (a play stopped for it), in this library (made now if
    /// it was not there yet); or the library could not be made.
    case recordingStarting(Result<RecordingLibrary, any Error>)
    case recordingStarted
    case recordingFailed(any Error)
    case recorded(RecordingEvent, paused: Bool)
    case recordingSaved(Result<Recording, any Error>)
    /// The words of a clip just recorded were heard and stored (``HomeEffect/transcribe(_:)``).
    case transcribed(Recording, Transcript)

    /// A clip's words changed (`trimmed`: the words whose spaces at the ends were removed).
    case edited(Recording, trimmed: [String])
    /// A clip deleted, and what to say.
    case removed(Recording, said: String)
    /// What `x` found to cut of a clip (nil: no sound above the noise), asked of this version;
    /// `lookBack`: the look back's `a`, which sets the part to keep.
    case cutProposed(Recording, ClipVersion, TrimProposal?, lookBack: Bool)
    case cut(from: Recording, to: Recording)
    /// The look back's `c` cleaned the noise of its clip beside it: what it measured, to compare.
    case noiseCleaned(figures: String)
    /// A clean-up compared was kept: the clip as it now is.
    case cleanUpKept(Recording)
    /// The reminders read (``ReminderWork``), after a change: what to say of it.
    case remindersRead(ReminderListing, said: String?)
    /// A change that failed: said, then `suffix` (what was kept); with `refresh`, the list read again.
    case failed(any Error, suffix: String, refresh: Bool)
}

/// What the home screen's shell carries out for an event (``HomeState/apply(_:)``): plays,
/// recordings and changes through the library's door, and the terminal's own.
enum HomeEffect: Equatable {
    /// Plays a clip on the player line at `speed`; `counted` false for the look back's play.
    case play(Recording, counted: Bool, speed: Double, from: Double = 0)
    /// A key of the play under way.
    case player(PlayerCommand)
    /// Stores a marker of a clip (`m` on the player line; its label once typed).
    case mark(RecordingID, ClipMarker)
    /// Records (with `video`, the first camera too).
    case record(video: Bool)
    case pauseRecording
    case stopRecording
    /// Hears the words of a clip just saved, when `transcribe.auto` is on and the transcriber
    /// is installed (``AutoTranscription``); nothing otherwise.
    case transcribe(Recording)
    /// Changes words of the clip `asked` shows (0 the title, 1 the notes, 2 the purpose).
    case edit(ClipVersion, [Answer])
    /// Deletes the clip `asked` shows: `.delete` or the look back's `.discard`.
    case remove(ClipVersion, HomeMode.Confirmed)
    /// Looks for the silence to cut at the ends of the clip `asked` shows (`x`, or the look
    /// back's `a`).
    case proposeCut(ClipVersion, lookBack: Bool)
    case cut(ClipVersion, start: Double, end: Double)
    /// Cleans the noise of the clip `asked` shows beside it, to be compared (the look back's `c`).
    case cleanNoise(ClipVersion)
    /// Plays the clean-up (`cleaned`) or the clip as it was, from a point, never counted.
    case hearCleanUp(cleaned: Bool, from: Double)
    /// Keeps the clean-up compared in place of its clip, or discards it.
    case settleCleanUp(keep: Bool)
    /// Draws the whole screen again (another program wrote over it).
    case redrawAll
    /// Sends the library's changes to the sync folder and merges the other machines' (``SyncWork``).
    case sync
    /// Syncs again in a few seconds: a file of the inbox is still being written.
    case syncLater
    /// Reads the reminders (`t`, or the library changed while they are shown).
    case readReminders
    /// Adds a reminder (no number), or changes the one of its number, offering the clip whose
    /// id starts with `clip` (empty: the first of Quick Play); its units written, as `cravey
    /// remind add` writes them.
    case saveReminder(Reminder, clip: String)
    /// Pauses a reminder until resumed, or resumes it.
    case pauseReminder(Int64, resume: Bool)
    /// Removes a reminder and its units.
    case removeReminder(Int64)

    /// A word typed for a clip: 0 the title, 1 the notes, 2 the purpose.
    struct Answer: Equatable {
        let field: Int
        let text: String
    }
}
