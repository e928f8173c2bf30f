import Foundation
import GRDB
import SystemPackage

/// The one writer of a library folder: it holds the folder's descriptor, the writers' lock, the
/// files being written and the `delete-all` journal, and every step that changes files and rows
/// together (create, save, delete, delete all, repair) goes through it.
///
/// Every file is reached beneath the folder's own descriptor (`openat`, `fstatat`, `renameat`,
/// `unlinkat`, never following a link), created mode 0600 and never chmodded; folders are 0700.
/// It alone names, creates, renames and removes the media files; writers only write. The rows
/// are the database's (``repository``); the steps here keep files and rows in an order every
/// other process can rely on (see "Several processes, one library" in the README).
// @unchecked Sendable: `root` and the `let`s never change; the live files and the faults are
// behind `Locked`; the descriptor is only used with `*at` calls, which are thread-safe.
package final class FileStorageManager: @unchecked Sendable {
    package static let recordingsFolder = "Recordings"
    package static let thumbnailsFolder = "Recordings/Thumbnails"
    /// The suffix of a recording still being written; `doctor` finds those a crash left.
    package static let partialSuffix = ".partial"
    /// The suffix of an import still being written (``importingURL(for:type:)``).
    package static let importingSuffix = ".importing"
    /// The suffix of the normal MP4 a fragmented file is rewritten into before it replaces it.
    package static let finishingSuffix = ".finishing"
    /// The prefix a file gets while its deletion is under way (``markForDeletion(_:)``).
    package static let deletingPrefix = ".deleting-"

    /// The library folder.
    package let libraryURL: URL
    /// The library folder, opened once: the base of every `*at` call; nil when there is none and
    /// none was to be made (a command that only reads).
    let root: FileDescriptor?
    /// The rows: read by anyone, written in the steps of this type (and in one-row changes).
    package private(set) var repository: RecordingRepository!
    /// What a person should read once about the folder: others can reach it, or it is not theirs.
    package let warnings: [String]
    /// The writers' lock of this folder, shared by every manager of it in this process.
    let writersLock: WritersLock?
    /// The `flock`-holding descriptors of the files this process is writing, by path.
    let liveFiles = Locked<[String: Int32]>([:])
    /// Clips given up while being written (``abandon(_:)``): never created or saved again.
    let abandoned = Locked<Set<UUID>>([])
    private let injected = Locked(StorageFaults())

    /// Faults a test injects; none in production.
    package var faults: StorageFaults {
        get { injected.withLock { $0 } }
        set { injected.withLock { $0 = newValue } }
    }

    /// Opens the library folder at `libraryURL`, creating it and its folders (0700) where they
    /// are missing, and its database (0600); nothing that exists changes mode. A read-only
    /// library opens for reading. A `delete-all` a crash interrupted is finished first.
    ///
    /// Without `creating`, nothing is made: a folder that is not there, or holds no database
    /// yet, reads as an empty library. Either way a folder that holds other things and is no
    /// cravey library is refused (`.invalidInput`): cravey never mixes its files with a
    /// person's.
    package init(libraryURL: URL, creating: Bool = true) throws(CraveyError) {
        let url = libraryURL.standardizedFileURL
        self.libraryURL = url
        let root = try Self.openLibraryFolder(url, creating: creating)
        self.root = root
        writersLock = root.map { WritersLock.of($0, at: url) }
        warnings = root.map { Self.warnings(about: $0, at: url) } ?? []
        isStored = root.map { creating || Self.holdsDatabase($0) } ?? false
        if root != nil { try makeFolders(creating: isStored) }
        if isStored {
            let (database, migrated) = try openDatabase()
            repository = RecordingRepository(database: database, keeper: { [weak self] recording, plays in
                try self?.keep(recording, plays: plays)
            }, exclusive: { [weak self] body in
                guard let self else { return try body() }
                try self.holdingLock(body)
            })
            if migrated { try? keepMissingCopies() }
        } else {
            do {
                repository = RecordingRepository(database: try AppDatabase())
            } catch {
                throw CraveyError(.other, "Cannot make an empty library in memory: \(error).", underlying: error)
            }
        }
        // A delete-all a crash interrupted is finished by the next command, whichever it is;
        // a library that cannot be written keeps it for a command that can.
        if isDeletingAll { try? exclusively {} }
    }

    deinit {
        try? root?.close()
    }

    /// Whether there is a library folder here.
    package var exists: Bool { root != nil }
    /// Whether the library has its database on the disk (false: an empty one in memory, for a
    /// command that only reads a library that is not there yet).
    package let isStored: Bool

    /// The bytes an ordinary user may still write on the library's file system; nil when it
    /// cannot be told. The corresponding C function is `fstatvfs`.
    package func freeBytes() -> Int64? {
        var info = statvfs()
        guard let root, fstatvfs(root.rawValue, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The library folder and the two folders under it.
    package enum Folder: Sendable, CaseIterable {
        case library, recordings, thumbnails
    }

    package var recordingsURL: URL { libraryURL.appendingPathComponent(Self.recordingsFolder, isDirectory: true) }
    package var thumbnailsURL: URL { libraryURL.appendingPathComponent(Self.thumbnailsFolder, isDirectory: true) }

    /// Where a folder of the library is, for messages.
    package func url(of folder: Folder) -> URL {
        switch folder {
        case .library: libraryURL
        case .recordings: recordingsURL
        case .thumbnails: thumbnailsURL
        }
    }

    // MARK: - Opening

    /// Opens the library folder, creating it (0700, with its parents) when `creating` and it is
    /// missing; nil when it is missing and not to be made. A folder that cannot be created is an
    /// error. One that exists must be empty or cravey's (``isLibrary(_:)``). The corresponding C
    /// functions are `mkdir` and `open` with `O_DIRECTORY`.
    private static func openLibraryFolder(_ url: URL, creating: Bool) throws(CraveyError) -> FileDescriptor? {
        var exists = stat()
        if !creating, stat(url.path, &exists) != 0, errno == ENOENT { return nil }
        if creating, mkdir(url.path, 0o700) != 0, errno == ENOENT {
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw CraveyError(.cannotWrite, "Cannot create the library folder \(url.path): \(error.localizedDescription).",
                                  advice: .chooseLibrary, underlying: error)
            }
        }
        let descriptor = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { throw CraveyError(.notFound, "The library folder \(url.path) does not exist.") }
            if code == ENOTDIR {
                throw CraveyError(.cannotWrite, "Cannot use \(url.path) as the library: it is not a folder.", advice: .chooseLibrary)
            }
            throw writeError(code, url, doing: "open the library folder")
        }
        let root = FileDescriptor(rawValue: descriptor)
        guard isLibrary(root) || isEmpty(root) else {
            try? root.close()
            throw CraveyError(.invalidInput, "\(url.path) holds other files and is not a cravey library: cravey keeps its library only in a new or empty folder, so that nothing of yours is mixed with its files.",
                              advice: .chooseEmptyFolder)
        }
        return root
    }

    /// Whether the folder is a cravey library: it holds the database, `Recordings/` or the lock
    /// file (the database may have been moved aside, as cravey advises when it is damaged).
    private static func isLibrary(_ root: FileDescriptor) -> Bool {
        [AppDatabase.fileName, recordingsFolder, lockFile].contains { name in
            var info = stat()
            return fstatat(root.rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0
        }
    }

    /// Whether the library's database file is there.
    private static func holdsDatabase(_ root: FileDescriptor) -> Bool {
        var info = stat()
        return fstatat(root.rawValue, AppDatabase.fileName, &info, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// Whether the folder has no entry at all. The corresponding C functions are `fdopendir`
    /// and `readdir`, on a duplicate of the descriptor.
    private static func isEmpty(_ root: FileDescriptor) -> Bool {
        let copy = fcntl(root.rawValue, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0, let directory = fdopendir(copy) else { return false }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [0x2E], name != [0x2E, 0x2E] { return false }
        }
        return true
    }

    /// Creates `Recordings/` and `Thumbnails/` (0700) where they are missing, when `creating`,
    /// and checks the ones that exist, changing nothing about them: they must be real folders,
    /// not links. A library that cannot be written keeps its missing folders missing: reading
    /// works, writing fails later with `.cannotWrite`. The corresponding C function is `mkdirat`.
    private func makeFolders(creating: Bool) throws(CraveyError) {
        for (folder, name) in [(Folder.recordings, Self.recordingsFolder), (.thumbnails, "Thumbnails")] {
            let parent: FileDescriptor
            do throws(CraveyError) {
                parent = try openFolder(folder == .recordings ? .library : .recordings)
            } catch where !creating && error.kind == .notFound {
                return  // nothing made and nothing there: nothing to check
            }
            defer { try? parent.close() }
            if !creating {
                // Checked only.
            } else if mkdirat(parent.rawValue, name, 0o700) == 0 {
                fsync(parent.rawValue)  // the new folder's name on the disk too
            } else if ![EEXIST, EROFS, EACCES, EPERM].contains(errno) {
                throw Self.writeError(errno, url(of: folder), doing: "create the folder")
            }
            do throws(CraveyError) {
                let opened = try openFolder(folder)
                try? opened.close()
            } catch where error.kind == .notFound {
                return  // a read-only library without its folders: there is nothing in them to read
            }
        }
    }

    /// ssh-style warnings about who else can reach the library.
    private static func warnings(about root: FileDescriptor, at url: URL) -> [String] {
        var info = stat()
        guard fstat(root.rawValue, &info) == 0 else { return [] }
        var warnings: [String] = []
        let path = url.path
        if info.st_uid != geteuid() {
            warnings.append("the library folder \(path) belongs to user \(info.st_uid), not to you (user \(geteuid())): they can read and change your clips. If that is not meant, move your library, or run `chown -R \(geteuid()) '\(path)'`.")
        }
        if info.st_mode & 0o077 != 0 {
            warnings.append("the library folder \(path) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); its clips are private. Run `chmod 700 '\(path)'`.")
        }
        return warnings
    }

    /// Opens (creating and migrating when needed) the database beside `Recordings/`. Its tables
    /// are created and migrated under the writers' lock: two processes opening a new library at
    /// once would both create them.
    private func openDatabase() throws(CraveyError) -> (database: AppDatabase, migrated: Bool) {
        let file = libraryURL.appendingPathComponent(AppDatabase.fileName)
        do {
            let database = try AppDatabase(url: file)
            guard try database.needsMigration() else { return (database, false) }
            try exclusively { try database.migrate() }
            return (database, true)
        } catch let error as CraveyError {
            throw error
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw CraveyError(.other, "The library database \(file.path) is damaged (\(error.message ?? "not a database")).",
                              advice: .moveDamagedDatabase(file.path), underlying: error)
        } catch {
            throw CraveyError(database: error)
                ?? CraveyError(.cannotWrite, "Cannot open the library database \(file.path): \(error).", advice: .chooseLibrary,
                               underlying: error)
        }
    }

    // MARK: - Folders beneath the descriptor

    /// Opens a folder of the library, as the base of `*at` calls and for reading its entries:
    /// a duplicate of the library folder's descriptor, or `Recordings/` beneath it and
    /// `Thumbnails/` beneath that, neither through a link. The caller closes it. Throws
    /// `.notFound` when a folder is missing and `.cannotWrite` when one is a link or not a folder.
    ///
    /// The corresponding C functions are `dup` and `openat` with `O_DIRECTORY | O_NOFOLLOW`.
    package func openFolder(_ folder: Folder) throws(CraveyError) -> FileDescriptor {
        guard let root else { throw CraveyError(.notFound, "There is no library at \(libraryURL.path).") }
        let copy = fcntl(root.rawValue, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw Self.writeError(errno, libraryURL, doing: "open the library folder") }
        var current = FileDescriptor(rawValue: copy)
        let path: [(Folder, String)] = [(.recordings, Self.recordingsFolder), (.thumbnails, "Thumbnails")]
        for (step, name) in path.prefix(folder == .library ? 0 : folder == .recordings ? 1 : 2) {
            let next = openat(current.rawValue, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            try? current.close()
            guard next >= 0 else {
                let place = url(of: step).path
                switch code {
                case ENOENT:
                    throw CraveyError(.notFound, "The folder \(place) does not exist.")
                case ELOOP, ENOTDIR:
                    throw CraveyError(.cannotWrite, "Refusing to use the library: \(place) is a symbolic link or not a folder, and cravey never follows a link out of the library folder.",
                                      advice: .moveAside(place), underlying: Errno(rawValue: code))
                default:
                    throw Self.writeError(code, url(of: step), doing: "open the folder")
                }
            }
            current = FileDescriptor(rawValue: next)
        }
        return current
    }

    /// Runs `body` with a folder of the library open (``openFolder(_:)``), then closes it.
    package func withFolder<T>(_ folder: Folder, _ body: (FileDescriptor) -> T) throws(CraveyError) -> T {
        let descriptor = try openFolder(folder)
        defer { try? descriptor.close() }
        return body(descriptor)
    }

    /// ``openFolder(_:)``, its failure as the `Errno` underneath (ELOOP for a link).
    func folderDescriptor(_ folder: Folder) throws(Errno) -> FileDescriptor {
        do throws(CraveyError) {
            return try openFolder(folder)
        } catch {
            if let code = error.underlying as? Errno { throw code }
            throw error.kind == .notFound ? .noSuchFileOrDirectory : .ioError
        }
    }

    /// Explains a failed file call on `url` (`doing` names the action: "create the folder").
    package static func writeError(_ code: Int32, _ url: URL, doing action: String) -> CraveyError {
        let advice: CraveyError.Advice? = switch code {
        case ENOSPC, EDQUOT: .freeSpace
        case EACCES, EPERM, EROFS: .chooseLibrary
        default: nil
        }
        return CraveyError(.cannotWrite, "Cannot \(action) \(url.path): \(String(cString: strerror(code))).", advice: advice,
                           underlying: Errno(rawValue: code))
    }

    /// Bytes as a person reads them: "512 bytes", "1.5 MB" (decimal units, as file managers show).
    package static func formatBytes(_ bytes: Int64) -> String {
        if bytes < 1000 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        let units = ["KB", "MB", "GB", "TB", "PB"]
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 999.95 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: value < 10 ? "%.1f %@" : "%.0f %@", value, units[unit])
    }
}
