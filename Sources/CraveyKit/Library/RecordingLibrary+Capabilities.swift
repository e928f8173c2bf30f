import Foundation

extension RecordingLibrary {
    /// A clip's words: heard, read back, corrected (``LibraryTranscripts``).
    package var transcripts: LibraryTranscripts { LibraryTranscripts(library: self) }

    /// Trims, noise clean-ups and shares (``LibraryShaping``); the door's ``trim(_:from:to:)``,
    /// ``checkTrim(of:from:to:)`` and ``share(_:to:title:chapters:replacing:progress:)`` are its.
    package var shaping: LibraryShaping { LibraryShaping(library: self) }

    /// The doctor's steps (``LibraryDoctor``), which ``examine()`` and
    /// ``repair(deletingUnplayable:)`` run on a thread of their own.
    package var doctor: LibraryDoctor { LibraryDoctor(library: self) }
}
