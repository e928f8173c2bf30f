import Foundation

/// Deletes every recording: all rows and play events, every media file and thumbnail under
/// `Recordings/` (orphans, crash leftovers and names that are not UTF-8 included), leaving no
/// deleted text in the database. A recording another process is still making (its `.partial`,
/// `.finishing` and thumbnail) is left alone.
///
/// Atomic for the person, under the library lock: a journal (`delete-all.pending`) is written
/// before the first row goes and removed after the last file; after a crash at any instant the
/// next command (``RecordingLibrary/exclusively(_:)``) finishes the deletion, so a deleted clip
/// never comes back as a recovered one.
public struct DeleteAllRecordingsUseCase: Sendable {
    let library: RecordingLibrary

    public init(library: RecordingLibrary) {
        self.library = library
    }

    /// What was deleted.
    public struct Summary: Sendable, Equatable, Codable {
        public var recordings: Int
        public var files: Int
        public var bytes: Int64
    }

    @discardableResult
    public func execute() throws -> Summary {
        try library.exclusively {
            try library.storage.beginDeletingAll()
            return try finish()
        }
    }

    /// Deletes everything the journal stands for, then removes the journal; called under the
    /// library lock. When files cannot be deleted, their rows come back (so no file is left
    /// without its row) and the journal goes: the deletion is given up, not retried.
    @discardableResult
    func finish() throws -> Summary {
        let storage = library.storage
        let deleted = try library.repository.deleteAll()
        var summary = Summary(recordings: deleted.count, files: 0, bytes: 0)
        var failed: [(path: String, error: CraveyError)] = []
        let live = storage.liveStems()
        for (path, size) in storage.storedFilesWithSizes() {
            let url = storage.url(of: path)
            if live.contains(FileStorageManager.stem(of: url.lastPathComponent)) { continue }
            do {
                try storage.remove(url)
                summary.files += 1
                summary.bytes += size
            } catch {
                failed.append((path, error))
            }
        }
        // Names that are not UTF-8 no row can hold: they go by their bytes.
        for file in storage.unreadableNames() {
            do {
                try storage.remove(raw: file.name, in: file.folder)
                summary.files += 1
                summary.bytes += file.size
            } catch {
                failed.append((FileStorageManager.visibleName(file.name), error))
            }
        }
        guard failed.isEmpty else {
            // Rows whose file is still there come back, so no file is left without its row.
            let remaining = Set(failed.map(\.path))
            try library.repository.restore(deleted.filter { remaining.contains($0.0.filePath) })
            storage.endDeletingAll()
            throw CraveyError(.cannotWrite, "Deleted \(summary.files) files, but \(failed.count) could not be deleted; their recordings are kept. First failure: \(failed[0].error.message)", underlying: failed[0].error)
        }
        storage.endDeletingAll()
        return summary
    }
}
