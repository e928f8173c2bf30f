import Foundation

/// An opened library folder: its files (``FileStorageManager``) and its rows (``RecordingRepository``).
public struct RecordingLibrary: Sendable {
    public private(set) var storage: FileStorageManager
    public let repository: RecordingRepository

    /// Faults a test injects into file operations.
    package var storageFaults: StorageFaults {
        get { storage.faults }
        set { storage.faults = newValue }
    }

    /// Opens the library at `url`, creating the folders (0700) and the database (0600) if needed.
    public init(at url: URL) throws {
        storage = FileStorageManager(libraryURL: url)
        try storage.prepare()
        let database = try AppDatabase(url: storage.libraryURL.appendingPathComponent(AppDatabase.fileName))
        repository = RecordingRepository(database: database)
    }
}
