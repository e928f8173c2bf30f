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
    public func edit(_ id: UUID, _ change: (inout RecordingMetadata) throws -> Void) throws -> Recording {
        guard let current = try repository.fetch(id: id) else {
            throw CraveyError(.notFound, "No recording has the id \(id.uuidString.lowercased()).", advice: .listRecordings)
        }
        var wanted = RecordingMetadata(stored: current)
        try change(&wanted)
        let titleChanged = wanted.title != current.title, notesChanged = wanted.notes != current.notes
        let checked = try RecordingMetadata(title: titleChanged ? wanted.title ?? "" : nil,
                                            notes: notesChanged ? wanted.notes ?? "" : nil, purpose: wanted.purpose)
        let title = titleChanged ? checked.resolvedTitle(createdAt: current.createdAt) : current.title
        let notes = notesChanged ? checked.notes : current.notes
        return try repository.updateMetadata(of: id, title: title, notes: notes, purpose: checked.purpose)
    }
}
