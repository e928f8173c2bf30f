import Foundation

extension RecordingLibrary {
    /// What ``deleteAll()`` removed.
    public struct DeletionSummary: Sendable, Equatable, Codable {
        /// Recordings (rows) deleted.
        public var recordings: Int
        /// Files deleted: media, thumbnails, and anything a crash had left in `Recordings/`.
        public var files: Int
        /// The bytes those files held.
        public var bytes: Int64
        /// Files in `Recordings/` cravey did not make (a person's own), left where they are.
        public var untouched: [String]
    }

    /// Deletes one recording: its row, its play history, its media file and its thumbnail, all or
    /// nothing. Returns the recording as it was. Throws `.notFound` when there is no such recording.
    ///
    /// A crash half-way leaves the files renamed aside; the next repair (``repair(deletingUnplayable:)``)
    /// restores them if the row is still there and finishes the deletion if it is not.
    @discardableResult
    public func delete(_ id: UUID) throws -> Recording {
        try storage.delete(id)
    }

    /// Deletes every recording, every file cravey made under `Recordings/` and every play, and
    /// clears the deleted text out of the database file. A recording another process is still
    /// making is left alone, and so are files cravey did not make (``DeletionSummary/untouched``). Once it has begun, a crash cannot undo it: whoever opens the library next
    /// finishes it, so a deleted clip never comes back.
    @discardableResult
    public func deleteAll() throws -> DeletionSummary {
        let deleted = try storage.deleteAll()
        return DeletionSummary(recordings: deleted.recordings, files: deleted.files, bytes: deleted.bytes,
                               untouched: deleted.untouched)
    }
}
