import Foundation

/// Deletes every recording: all rows and play events, every media file and thumbnail under
/// `Recordings/` (orphans and crash leftovers included), leaving no deleted text in the database.
/// A recording another process is still making is left alone.
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
        let storage = library.storage
        let deleted = try library.repository.deleteAll()
        var summary = Summary(recordings: deleted.count, files: 0, bytes: 0)
        var failed: [(path: String, error: CraveyError)] = []
        for (path, size) in storage.storedFilesWithSizes() {
            let url = storage.url(of: path)
            if path.hasSuffix(FileStorageManager.partialSuffix) && storage.isBeingRecorded(url) { continue }
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
            throw CraveyError(.cannotWrite, "Deleted \(summary.files) files, but \(failed.count) could not be deleted; their recordings are kept. First failure: \(failed[0].error.message)", underlying: failed[0].error)
        }
        return summary
    }
}
