import Foundation

/// The library as a whole: how much room it takes (`cravey storage`), and deleting every clip
/// in it (`cravey delete-all`). A capability reached from the door (``RecordingLibrary/storage``);
/// the files and rows are ``LibraryStore``'s.
package struct LibraryStorage: Sendable {
    package let library: RecordingLibrary

    /// How much room the library takes, and what it holds (``report()``).
    package struct Report: Codable, Sendable, Equatable {
        /// Bytes of every file under `Recordings/`, thumbnails included.
        package var totalBytes: Int64
        /// The same, as a person reads it ("1.5 MB").
        package var totalSize: String
        package var recordings: Int
        /// Recordings by type: `audio`, `video`.
        package var byType: [String: Int]
        /// Recordings by purpose, `none` for those without one.
        package var byPurpose: [String: Int]
    }

    /// How much room the library takes, and its recordings by type and purpose.
    package func report() throws -> Report {
        let recordings = try library.recordings()
        let total = [StoredFile.Folder.recordings, .thumbnails].flatMap { library.store.files?.entries(in: $0) ?? [] }
            .reduce(Int64(0)) { $0 + ($1.status.size ?? 0) }
        var byType = Dictionary(uniqueKeysWithValues: RecordingType.allCases.map { ($0.rawValue, 0) })
        var byPurpose = Dictionary(uniqueKeysWithValues: (RecordingPurpose.allCases.map(\.rawValue) + ["none"]).map { ($0, 0) })
        for recording in recordings {
            byType[recording.type.rawValue, default: 0] += 1
            byPurpose[recording.purpose?.rawValue ?? "none", default: 0] += 1
        }
        return Report(totalBytes: total, totalSize: ByteCount.text(total), recordings: recordings.count,
                             byType: byType, byPurpose: byPurpose)
    }

    /// What ``deleteAll()`` removed.
    package struct DeletionSummary: Sendable, Equatable, Codable {
        /// Recordings (rows) deleted.
        package var recordings: Int
        /// Files deleted: media, thumbnails, and anything a crash had left in `Recordings/`.
        package var files: Int
        /// The bytes those files held.
        package var bytes: Int64
        /// Files in `Recordings/` cravey did not make (a person's own), left where they are.
        package var untouched: [String]
    }

    /// Deletes every recording, every file cravey made under `Recordings/` and every play, and
    /// clears the deleted text out of the database file. A recording another process is still
    /// making is left alone, and so are files cravey did not make (``DeletionSummary/untouched``).
    /// Once it has begun, a crash cannot undo it: whoever opens the library next finishes it, so
    /// a deleted clip never comes back. Files that cannot be deleted keep their clips, and the
    /// error says how many.
    @discardableResult
    package func deleteAll() throws -> DeletionSummary {
        guard library.store.isStored else { return DeletionSummary(recordings: 0, files: 0, bytes: 0, untouched: []) }
        let deleted = try library.store.write { tx in try tx.deleteAll() }
        if let (_, first) = deleted.failures.first {
            var error = CraveyError(.cannotWrite, "Deleted \(deleted.files) files, but \(deleted.failures.count) could not be deleted; their recordings are kept. First failure: \(first.message)",
                                    underlying: first)
            error.advice = first.advice
            throw error
        }
        return DeletionSummary(recordings: deleted.recordings, files: deleted.files, bytes: deleted.bytes, untouched: deleted.untouched)
    }
}
