import Foundation

/// A clip as a question showed it, for the change its answer makes: the change is made only
/// while the clip is still so, and otherwise refused (`.busy`) with nothing changed.
///
/// Taken with ``RecordingLibrary/version(of:)`` when the question is asked, and handed to the
/// change (``LibraryShaping/trim(_:from:to:asked:)``, ``RecordingLibrary/delete(_:asked:)``,
/// ``RecordingLibrary/edit(_:asked:_:)``, ``LibraryShaping/cleanNoise(of:asked:)``), which
/// compares it with the clip inside its transaction, under the writers' lock. The clip is still
/// so when its row holds the same words and media facts (title, notes, purpose, duration, size,
/// file and thumbnail) and its media is the same file, unchanged (device, inode, size, change
/// time): a trim, a kept clean-up, an edit, a repair that measured it again or a restore all
/// change one of them. A counted play, and the loudness a first play measures, do not: they
/// change nothing the question showed.
package struct ClipVersion: Sendable, Equatable {
    /// The clip as the question showed it.
    package let recording: Recording
    /// Its media file then; nil when there was none to see.
    package let media: MediaIdentity?

    package init(recording: Recording, media: MediaIdentity?) {
        self.recording = recording
        self.media = media
    }

    /// Refuses a change of clip `id` given this version of another clip (a caller's mistake):
    /// `.invalidInput`, nothing changed.
    package func checkIsAbout(_ id: RecordingID) throws {
        guard recording.id != id else { return }
        throw CraveyError(.invalidInput, "The question was about \"\(recording.title)\" (\(recording.id)), not \(id); nothing was changed.")
    }

    /// Whether `current` (the row now) with `media` (its file now) is still this version. The
    /// creation date, which no change touches, is left out too: a clip just saved is shown
    /// with its date to the nanosecond, its row keeps it to the millisecond.
    func matches(_ current: Recording, media: MediaIdentity?) -> Bool {
        var shown = recording
        shown.createdAt = current.createdAt
        shown.playCount = current.playCount
        shown.lastPlayedAt = current.lastPlayedAt
        shown.pinnedSlot = current.pinnedSlot
        shown.markers = current.markers  // a trim moves the markers as they are at its commit
        shown.loudness = current.loudness
        return shown == current && media == self.media
    }
}
