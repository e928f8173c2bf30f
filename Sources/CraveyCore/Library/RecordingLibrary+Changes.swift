import Foundation

extension RecordingLibrary {
    /// Changes a recording's title, notes or purpose, with the limits and refusals a new
    /// recording's are checked against (``RecordingMetadata``), and returns the row as it now is.
    ///
    /// `change` gets the recording's words as they are and changes what it wants: a `title` of
    /// nil (or blank) restores the automatic "Recording <date>" title, `notes` of nil clears
    /// them, a `purpose` of nil clears it. Only what changed is checked (a title stored before a
    /// limit existed stays as it is while the notes change). Only those three columns are
    /// written, in one transaction, so a play counted meanwhile by another process is kept.
    /// Throws `.notFound` when there is no such recording, `.invalidInput` for refused words.
    @discardableResult
    public func edit(_ id: RecordingID, _ change: (inout RecordingMetadata) throws -> Void) throws -> Recording {
        try edit(id, asked: nil, change)
    }

    /// ``edit(_:_:)`` after a question: with `asked` (the clip as the question showed it,
    /// ``version(of:)``), `.busy`, nothing changed, when the clip is no longer so.
    package func edit(_ id: RecordingID, asked: ClipVersion?, _ change: (inout RecordingMetadata) throws -> Void) throws -> Recording {
        try asked?.checkIsAbout(id)
        guard let current = try recording(id) else {
            throw CraveyError(.notFound, "No recording has the id \(id.description).", advice: .listRecordings)
        }
        var wanted = RecordingMetadata(stored: current)
        try change(&wanted)
        let titleChanged = wanted.title != current.title, notesChanged = wanted.notes != current.notes
        let checked = try RecordingMetadata(title: titleChanged ? wanted.title ?? "" : nil,
                                            notes: notesChanged ? wanted.notes ?? "" : nil, purpose: wanted.purpose)
        let title = titleChanged ? checked.resolvedTitle(createdAt: current.createdAt) : current.title
        let notes = notesChanged ? checked.notes : current.notes
        return try store.write { tx in
            if let asked { try tx.expect(asked) }
            return try tx.repository.updateWords(of: id, title: title, notes: notes, purpose: checked.purpose)
        }
    }

    /// Adds tags to a recording and removes others, in one transaction; its copy (and so its
    /// backups) keeps them. A tag is one word of at most 30 characters, kept in lower case (see
    /// `ClipTags`); one both added and removed is removed. Returns the row as it now is.
    ///
    /// Throws ``CraveyError``: `.notFound` for a recording not in the library, `.invalidInput`
    /// for a tag refused or more than 20 tags on the clip (nothing changes).
    @discardableResult
    public func tag(_ id: RecordingID, adding: [String] = [], removing: [String] = []) throws -> Recording {
        try store.write { tx in try ClipTags(tx.db).change(id, adding: adding, removing: removing) }
    }

    /// Pins a recording to a Quick Play slot (1 to ``quickPlayCount``), where it stays whatever
    /// its play count: `slot` nil keeps the slot it is pinned to, or takes the first free one.
    /// A recording already in the slot is unpinned, and returned as `displaced`. The change is
    /// one transaction, and each clip's copy (and so its backups) keeps its pin.
    ///
    /// Throws ``CraveyError``: `.notFound` for a recording not in the library, `.invalidInput`
    /// for a slot out of range, or no slot given while every slot is pinned (nothing changes).
    @discardableResult
    public func pin(_ id: RecordingID, slot: Int? = nil) throws -> (pinned: Recording, displaced: Recording?) {
        try store.write { tx in try QuickPlayPins(tx.db).pin(id, to: slot) }
    }

    /// Unpins a recording: it stays in Quick Play only while it is among the most played. Returns
    /// its row as it now is; `.notFound` when it is not in the library.
    @discardableResult
    public func unpin(_ id: RecordingID) throws -> Recording {
        try store.write { tx in try QuickPlayPins(tx.db).unpin(id) }
    }

    /// Counts a play of `recording` that happened elsewhere (another program, handed
    /// ``fileURL(of:)``), or here: the event, `playCount` + 1 and `lastPlayedAt`, in one
    /// transaction. Returns the row as it now is; `.notFound` when it is gone.
    @discardableResult
    public func countPlay(of recording: Recording, secondsListened: Double = 0, completed: Bool = false) throws -> Recording {
        try store.write { tx in
            try tx.repository.recordPlay(of: recording.id, secondsListened: secondsListened, completed: completed, at: Date())
        }
    }

    /// Deletes one recording: its row, its play history, its media file, its thumbnail, its
    /// waveform and its copy, all or nothing. Returns the recording as it was. Throws `.notFound`
    /// when there is no such recording.
    ///
    /// A crash half-way leaves the files renamed aside; the next repair restores them if the row
    /// is still there and finishes the deletion if it is not.
    @discardableResult
    public func delete(_ id: RecordingID) throws -> Recording {
        try delete(id, asked: nil)
    }

    /// ``delete(_:)`` after a question: with `asked` (the clip as the question "Delete it?"
    /// showed it, ``version(of:)``), `.busy`, nothing deleted, when the clip changed since
    /// (trimmed, cleaned, its words edited): the person agreed to delete the clip they were
    /// shown, not the one it became.
    @discardableResult
    package func delete(_ id: RecordingID, asked: ClipVersion?) throws -> Recording {
        try asked?.checkIsAbout(id)
        return try store.write { tx in
            if let asked { try tx.expect(asked) }
            return try tx.delete(id)
        }
    }

    /// The clip as a question about it shows it now (``ClipVersion``): `recording` as the
    /// caller has it, with the identity of its media file. Take it when asking; hand it to the
    /// change the answer makes, which is refused (`.busy`) if the clip changed meanwhile.
    package func version(of recording: Recording) -> ClipVersion {
        ClipVersion(recording: recording, media: MediaIdentity(of: ClipFiles(recording).media(), in: store))
    }
}
