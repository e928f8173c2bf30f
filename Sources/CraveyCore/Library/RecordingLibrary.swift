import Foundation
import GRDB

/// An opened library folder: its files (``FileStorageManager``) and its rows (``RecordingRepository``).
public struct RecordingLibrary: Sendable {
    public private(set) var storage: FileStorageManager
    public let repository: RecordingRepository
    /// What a person should read once about the library folder (``FileStorageManager/prepare()``):
    /// other users can reach it, or it belongs to someone else.
    public let warnings: [String]

    /// Faults a test injects into file operations.
    package var storageFaults: StorageFaults {
        get { storage.faults }
        set { storage.faults = newValue }
    }

    /// Opens the library at `url`, creating the folders (0700) and the database (0600) if needed;
    /// nothing that exists changes mode. A read-only library opens for reading.
    public init(at url: URL) throws {
        storage = FileStorageManager(libraryURL: url)
        warnings = try storage.prepare()
        let file = storage.libraryURL.appendingPathComponent(AppDatabase.fileName)
        do {
            // Two processes opening a new library at once would both create its tables.
            repository = RecordingRepository(database: try storage.exclusively { try AppDatabase(url: file) })
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw CraveyError(.other, "The library database \(file.path) is damaged (\(error.message ?? "not a database")). Move it aside (mv '\(file.path)' '\(file.path).damaged'); then `cravey doctor --repair` registers the clips in Recordings/ again, as \"Recovered\" recordings.", underlying: error)
        } catch {
            throw CraveyError(database: error)
                ?? CraveyError(.cannotWrite, "Cannot open the library at \(url.path): \(error). Check the folder or choose another with --library PATH.", underlying: error)
        }
        // A delete-all a crash interrupted is finished by the next command, whichever it is.
        if storage.isDeletingAll { try? exclusively {} }
    }

    /// Runs `body` holding the library's writer lock (``FileStorageManager/exclusively(_:)``),
    /// after finishing a `delete-all` a crash interrupted: a confirmed deletion is completed
    /// before anything else changes the library, and never undone.
    public func exclusively<T>(_ body: () throws -> T) throws -> T {
        try storage.exclusively {
            if storage.isDeletingAll { try DeleteAllRecordingsUseCase(library: self).finish() }
            return try body()
        }
    }
}
