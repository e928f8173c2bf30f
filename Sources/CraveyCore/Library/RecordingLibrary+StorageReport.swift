import Foundation

extension RecordingLibrary {
    /// How much room the library takes, and what it holds (``storageReport()``).
    public struct StorageReport: Codable, Sendable, Equatable {
        /// Bytes of every file under `Recordings/`, thumbnails included.
        public var totalBytes: Int64
        /// The same, as a person reads it ("1.5 MB").
        public var totalSize: String
        public var recordings: Int
        /// Recordings by type: `audio`, `video`.
        public var byType: [String: Int]
        /// Recordings by purpose, `none` for those without one.
        public var byPurpose: [String: Int]
    }

    /// How much room the library takes, and its recordings by type and purpose.
    public func storageReport() throws -> StorageReport {
        let recordings = try repository.fetchAll()
        let total = storage.totalStorageUsed()
        var byType = Swift.Dictionary(uniqueKeysWithValues: RecordingType.allCases.map { ($0.rawValue, 0) })
        var byPurpose = Swift.Dictionary(uniqueKeysWithValues: (RecordingPurpose.allCases.map(\.rawValue) + ["none"]).map { ($0, 0) })
        for recording in recordings {
            byType[recording.type.rawValue, default: 0] += 1
            byPurpose[recording.purpose?.rawValue ?? "none", default: 0] += 1
        }
        return StorageReport(totalBytes: total, totalSize: FileStorageManager.formatBytes(total),
                             recordings: recordings.count, byType: byType, byPurpose: byPurpose)
    }
}
