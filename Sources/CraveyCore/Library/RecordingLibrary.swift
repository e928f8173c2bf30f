import Foundation

/// A library of clips in a folder of this machine, and the one way to read and change it.
///
/// Everything that changes the library goes through here: recording (``record(_:)``), importing,
/// editing, deleting, deleting everything, repairing and counting plays. Each keeps the folder's
/// files and the database's rows in step, under the writers' lock where files and rows change
/// together, so several processes (and threads) can share one library. Reading (``recordings(sortedBy:)``,
/// ``quickPlay()``, ``storageReport()``, ``export(_:raw:)``) takes no lock: every read sees a
/// consistent snapshot.
///
/// The folder holds `library.sqlite`, `library.lock` and `Recordings/` (media files, each clip's
/// copy of its words and its waveform, and `Recordings/Thumbnails/`); folders are made mode 0700 and files 0600, and nothing outside the
/// folder is ever read, changed or deleted through it. Methods that do media work (record,
/// import, play, repair, thumbnails, waveforms) are in CraveyKit; they block or suspend, never both: the
/// synchronous ones here wait on the disk and on other processes, so call them off the main actor.
public final class RecordingLibrary: Sendable {
    /// This program's version, recorded in every library it writes.
    package static let programVersion = "0.1.0"

    /// How many recordings Quick Play offers.
    public static let quickPlayCount = RecordingRepository.quickPlayCount

    /// The one writer of the folder: its descriptor, lock, journal and files in flight.
    package let storage: FileStorageManager

    /// The rows.
    package var repository: RecordingRepository { storage.repository }

    /// The library folder.
    public var url: URL { storage.libraryURL }

    /// What a person should read once about the library folder: other users can reach it, or it
    /// belongs to someone else. The library works all the same.
    public var warnings: [String] { storage.warnings }

    /// Faults a test injects into file operations.
    package var storageFaults: StorageFaults {
        get { storage.faults }
        set { storage.faults = newValue }
    }

    /// Opens the library in the folder at `url`, creating the folder (0700) and its database
    /// (0600) if needed; nothing that exists changes mode. A library that cannot be written
    /// (a read-only mount) opens for reading; one a newer cravey wrote opens for reading too, and
    /// every change is refused (`.newerLibrary`).
    ///
    /// With `creating` false nothing is made: a folder that is not there (or holds no library
    /// yet) reads as an empty library, for a program that only looks.
    ///
    /// Throws ``CraveyError``: `.invalidInput` for a folder that holds other things and is no
    /// cravey library (cravey never mixes its files with yours), `.cannotWrite` when the folder
    /// cannot be made or used (a `Recordings/` that is a link, a database that is a link),
    /// `.other` for a damaged database.
    public init(at url: URL, creating: Bool = true) throws {
        storage = try FileStorageManager(libraryURL: url, creating: creating)
    }

    /// Opens the default library: `$CRAVEY_LIBRARY`, else `$XDG_DATA_HOME/cravey`, else
    /// `~/.local/share/cravey`.
    public convenience init(creating: Bool = true) throws {
        try self.init(at: LibraryLocation.resolve(explicit: nil), creating: creating)
    }

    // MARK: - Reading

    /// Every recording, in one of the orders the command line offers.
    public func recordings(sortedBy sort: RecordingSort = .recent) throws -> [Recording] {
        try repository.fetchAll(sortedBy: sort)
    }

    /// The recording with this id, or nil.
    public func recording(_ id: UUID) throws -> Recording? {
        try repository.fetch(id: id)
    }

    /// The one recording whose id starts with `prefix` (as git resolves abbreviated hashes).
    /// Throws `.notFound` for none and `.invalidInput` when several match or it is no id.
    public func recording(matching prefix: String) throws -> Recording {
        try repository.fetch(idPrefix: prefix)
    }

    /// Quick Play: the ``quickPlayCount`` most played, ties broken by last played, then newest.
    public func quickPlay() throws -> [Recording] {
        try repository.quickPlay()
    }

    /// Every play of a recording, oldest first.
    public func plays(of id: UUID) throws -> [PlayEvent] {
        try repository.playEvents(of: id)
    }

    /// How many recordings the library holds.
    public func count() throws -> Int {
        try repository.count()
    }

    /// Where `recording`'s media file is, checked to be a regular file inside the library
    /// (`.notFound` when it is missing): for handing it to another program.
    public func fileURL(of recording: Recording) throws -> URL {
        try storage.mediaURL(of: recording)
    }
}
