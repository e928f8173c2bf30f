import Foundation
import SystemPackage

/// The library folder, reached by name: it holds the descriptors of the folder, `Recordings/`
/// and `Recordings/Thumbnails/`, and makes every file call beneath them (`openat`, `renameat`,
/// `unlinkat`, `fstatat`, `fsync`), never through a link and never by a path re-joined from
/// strings. It knows nothing of clips or rows: ``LibraryStore`` decides what is written when.
///
/// Files are created mode 0600 from their first byte and folders 0700; nothing that exists
/// changes mode. A `URL` appears only where a message shows a path.
// Sendable: every stored property is a `let` of a Sendable type; the descriptors are only used
// with `*at` calls and `fsync`, which are thread-safe.
package final class FileStorageManager: Sendable {
    /// The library folder, for messages.
    package let libraryURL: URL
    private let root: FileDescriptor
    /// `Recordings/` and `Recordings/Thumbnails/`, opened once; nil when missing (a library that
    /// only reads, or one that cannot be written).
    private let recordings: FileDescriptor?
    private let thumbnails: FileDescriptor?
    /// Whether the library's database file is (or is to be) here: false for a folder opened
    /// without creating that holds no library yet.
    package let isStored: Bool
    /// What a person should read once about the folder: others can reach it, or it is not theirs.
    package let warnings: [String]
    private let injected = Locked(StorageFaults())

    /// Faults a test injects; none in production.
    package var faults: StorageFaults {
        get { injected.withLock { $0 } }
        set { injected.withLock { $0 = newValue } }
    }

    /// Opens the library folder at `url`, creating it and its two folders (0700) when
    /// `creating`; nil when there is no folder and none is to be made. A folder that holds other
    /// things and is no cravey library is refused (`.invalidInput`): cravey never mixes its files
    /// with a person's. A `Recordings/` or `Thumbnails/` that is a link or not a folder is refused
    /// (`.cannotWrite`).
    package init?(at url: URL, creating: Bool, databaseName: String) throws(CraveyError) {
        let url = url.standardizedFileURL
        guard let root = try Self.openLibraryFolder(url, creating: creating, databaseName: databaseName) else { return nil }
        libraryURL = url
        self.root = root
        isStored = creating || Self.status(databaseName, in: root) != .missing
        warnings = Self.warnings(about: root, at: url)
        do throws(CraveyError) {
            recordings = try Self.folder("Recordings", in: root, creating: isStored, shownAs: url.appendingPathComponent("Recordings"))
            if let recordings {
                thumbnails = try Self.folder("Thumbnails", in: recordings, creating: isStored,
                                             shownAs: url.appendingPathComponent(StoredFile.Folder.thumbnails.path))
            } else {
                thumbnails = nil
            }
        } catch {
            try? root.close()
            throw error
        }
    }

    deinit {
        for descriptor in [thumbnails, recordings, root] { try? descriptor?.close() }
    }

    /// Where a file is, for messages.
    package func url(of file: StoredFile) -> URL {
        URL(fileURLWithPath: libraryURL.path + "/" + file.path, isDirectory: false)
    }

    /// Where a folder is, for messages.
    package func url(of folder: StoredFile.Folder) -> URL {
        folder == .library ? libraryURL : URL(fileURLWithPath: libraryURL.path + "/" + folder.path, isDirectory: true)
    }

    /// The descriptor of `folder`; ENOENT when it is missing.
    private func descriptor(of folder: StoredFile.Folder) throws(Errno) -> FileDescriptor {
        switch folder {
        case .library: return root
        case .recordings: if let recordings { return recordings }
        case .thumbnails: if let thumbnails { return thumbnails }
        }
        throw .noSuchFileOrDirectory
    }

    /// The library's writers' lock, in this folder.
    func writersLock() -> WritersLock {
        WritersLock(beneath: root, shownAs: libraryURL)
    }

    /// The journal of a `delete-all`, in this folder.
    func deleteAllJournal() -> DeleteAllJournal {
        DeleteAllJournal(beneath: root, shownAs: libraryURL)
    }

    // MARK: - Files

    /// Opens a stored file for reading, beneath its folder and never through a link, without
    /// blocking (a named pipe in its place is refused, never waited on) and only when it is a
    /// regular file. Throws `.notFound` when it is missing, `.invalidInput` for a link or a
    /// special file. The corresponding C functions are `openat` with `O_NOFOLLOW | O_NONBLOCK`
    /// and `fstat`.
    package func open(_ file: StoredFile) throws(CraveyError) -> FileDescriptor {
        let opened = Result { () throws(Errno) in
            let descriptor = openat(try self.descriptor(of: file.folder).rawValue, file.name,
                                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { throw Errno(rawValue: errno) }
            return FileDescriptor(rawValue: descriptor)
        }
        let descriptor: FileDescriptor
        do {
            descriptor = try opened.get()
        } catch .noSuchFileOrDirectory {
            throw CraveyError(.notFound, "No file at \(url(of: file).path).")
        } catch .tooManySymbolicLinkLevels {
            throw notRegular(file, "a link")
        } catch {
            throw CraveyError(.other, "Cannot read \(url(of: file).path): \(error.description).", underlying: error)
        }
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            try? descriptor.close()
            throw notRegular(file, Status.kind(info.st_mode))
        }
        _ = fcntl(descriptor.rawValue, F_SETFL, O_RDONLY)  // reads of the regular file block as usual
        return descriptor
    }

    private func notRegular(_ file: StoredFile, _ kind: String) -> CraveyError {
        CraveyError(.invalidInput, "Refusing \(url(of: file).path): it is \(kind), not a regular file, and cravey reads only the files it made there (never through a link).",
                    advice: .repairLibrary)
    }

    /// Creates `file` for reading and writing: a new file (never an existing one, never through a
    /// link), 0600 from its first byte whatever the umask. The corresponding C function is
    /// `openat` with `O_CREAT | O_EXCL | O_NOFOLLOW`.
    package func create(_ file: StoredFile) throws(Errno) -> FileDescriptor {
        try Self.create(file.name, in: descriptor(of: file.folder))
    }

    private static func create(_ name: String, in folder: FileDescriptor) throws(Errno) -> FileDescriptor {
        let descriptor = openat(folder.rawValue, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        return FileDescriptor(rawValue: descriptor)
    }

    /// Renames within the library, replacing what `destination` names. The corresponding C
    /// function is `renameat`.
    package func rename(_ source: StoredFile, to destination: StoredFile) throws(Errno) {
        if source.folder == .recordings, destination.folder == .recordings, let fault = faults.replacement {
            try fault(destination)
        }
        guard renameat(try descriptor(of: source.folder).rawValue, source.name,
                       try descriptor(of: destination.folder).rawValue, destination.name) == 0 else {
            throw Errno(rawValue: errno)
        }
    }

    /// Removes a name (never following a link); ENOENT when there is none. The corresponding C
    /// function is `unlinkat`.
    package func remove(_ file: StoredFile) throws(Errno) {
        if let fault = faults.removal { try fault(file) }
        guard unlinkat(try descriptor(of: file.folder).rawValue, file.name, 0) == 0 else { throw Errno(rawValue: errno) }
    }

    /// Flushes a folder's entries (what was created, renamed or removed in it) to the disk. The
    /// corresponding C function is `fsync` on the folder's descriptor.
    package func sync(_ folder: StoredFile.Folder) throws(Errno) {
        guard fsync(try descriptor(of: folder).rawValue) == 0 else { throw Errno(rawValue: errno) }
    }

    /// What is at a name, looked at without following a link.
    package enum Status: Equatable, Sendable {
        case missing
        case regular(size: Int64, modified: Date)
        /// A link, a folder, a named pipe or a device: never cravey's.
        case other(String)

        /// The size of a regular file; nil otherwise.
        package var size: Int64? {
            if case .regular(let size, _) = self { size } else { nil }
        }

        /// What `fstatat` or `fstat` found.
        init(_ info: stat) {
            guard info.st_mode & S_IFMT == S_IFREG else {
                self = .other(Self.kind(info.st_mode))
                return
            }
            let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
            self = .regular(size: Int64(info.st_size), modified: modified)
        }

        /// "a link", "a named pipe"... for messages.
        static func kind(_ mode: mode_t) -> String {
            switch mode & S_IFMT {
            case S_IFREG: "a regular file"
            case S_IFLNK: "a link"
            case S_IFDIR: "a folder"
            case S_IFIFO: "a named pipe"
            case S_IFSOCK: "a socket"
            default: "a device"
            }
        }
    }

    /// What is at `file`. The corresponding C function is `fstatat` with `AT_SYMLINK_NOFOLLOW`.
    package func status(of file: StoredFile) -> Status {
        guard let folder = try? descriptor(of: file.folder) else { return .missing }
        return Self.status(file.name, in: folder)
    }

    private static func status(_ name: String, in folder: FileDescriptor) -> Status {
        var info = stat()
        return fstatat(folder.rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? Status(info) : .missing
    }

    /// What `fstatat` says of `file` (never following a link); nil when there is nothing there.
    package func information(about file: StoredFile) -> stat? {
        guard let folder = try? descriptor(of: file.folder) else { return nil }
        var info = stat()
        return fstatat(folder.rawValue, file.name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
    }

    /// One entry of a folder: its raw name (not always UTF-8) and what it is.
    package struct Entry: Sendable {
        package var name: [UInt8]
        package var status: Status
        /// The entry as a stored file, when its name is UTF-8.
        package func file(in folder: StoredFile.Folder) -> StoredFile? {
            String(validating: name, as: UTF8.self).map { StoredFile(folder, $0) }
        }
    }

    /// The entries of `folder` (`.` and `..` left out), each looked at once. The corresponding C
    /// functions are `fdopendir`, `readdir` and `fstatat`, on a duplicate of its descriptor.
    package func entries(in folder: StoredFile.Folder) -> [Entry] {
        guard let base = try? descriptor(of: folder) else { return [] }
        return Self.entries(of: base)
    }

    /// The entries of the folder `base` has open (`.` and `..` left out), each looked at once.
    package static func entries(of base: FileDescriptor) -> [Entry] {
        let copy = openat(base.rawValue, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard copy >= 0, let directory = fdopendir(copy) else { return [] }
        defer { closedir(directory) }
        var entries: [Entry] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard name != [0x2E], name != [0x2E, 0x2E] else { continue }
            var info = stat()
            let found = (name + [0]).withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { fstatat(base.rawValue, $0.baseAddress!, &info, AT_SYMLINK_NOFOLLOW) }
            }
            entries.append(Entry(name: name, status: found == 0 ? Status(info) : .missing))
        }
        return entries
    }

    /// Whether a process holds `file` locked: a file being written is, by its writer, for as
    /// long as it lives (the kernel drops the lock when it dies). The corresponding C function
    /// is `flock` with `LOCK_SH | LOCK_NB`.
    package func isLocked(_ file: StoredFile) -> Bool {
        guard let folder = try? descriptor(of: file.folder) else { return false }
        let descriptor = openat(folder.rawValue, file.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// The bytes an ordinary user may still write on the library's file system; nil when it
    /// cannot be told. The corresponding C function is `fstatvfs`.
    package func freeBytes() -> Int64? {
        var info = statvfs()
        guard fstatvfs(root.rawValue, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    // MARK: - Atomic writes

    /// Writes `file` all at once or not at all: ``writeAtomically(named:in:shownAs:doing:replacing:syncing:faults:fill:)``
    /// beneath its folder. Without `syncing` nothing is flushed (many files written at once, then
    /// flushed together).
    package func writeAtomically(_ file: StoredFile, doing action: String, replacing: Bool = true, syncing: Bool = true,
                                 syncingFolder: Bool = true, fill: (MediaFile) throws -> Void) throws {
        do {
            try Self.writeAtomically(named: file.name, in: descriptor(of: file.folder), shownAs: url(of: file), doing: action,
                                     replacing: replacing, syncing: syncing, syncingFolder: syncingFolder, faults: faults, fill: fill)
        } catch let error as Errno {
            throw Self.writeError(error.rawValue, url(of: file), doing: action)
        }
    }

    /// Writes a file a person asked for outside the library (an export, a backup, a picture),
    /// mode 0600, all at once or not at all. Refused (`.invalidInput`, exit 64): any place inside
    /// the library folder, links resolved (its files are cravey's alone); something already at
    /// `url` unless `replacing`; and, even then, anything there that is not a regular file.
    package func writeOutside(to url: URL, doing action: String, replacing: Bool, fill: (MediaFile) throws -> Void) throws {
        if let folder = Self.realPath(url.deletingLastPathComponent()), let root = Self.realPath(libraryURL),
           folder == root || folder.hasPrefix(root + "/") {
            throw CraveyError(.invalidInput, "Refusing to \(action) \(url.path): it is inside the library folder \(libraryURL.path), whose files only cravey manages. Choose a place outside it.")
        }
        try Self.writeAtomically(to: url, doing: action, replacing: replacing, faults: faults, fill: fill)
    }

    /// The one atomic write, of a file anywhere (its folder opened by path): a private (0600)
    /// temporary file in the same folder, filled by `fill`, flushed, then given its name in one
    /// step, the folder flushed too. A failure leaves no temporary file: an `Errno` (a full disk)
    /// says what happened to `url`, any other error of `fill` is thrown as it is.
    ///
    /// Without `replacing`, the name is made with `linkat`, which fails when anything is there
    /// (a link included). With it, `renameat` replaces a regular file only. The corresponding C
    /// functions are `openat`, `write`, `fsync`, `linkat` and `renameat`.
    package static func writeAtomically(to url: URL, doing action: String, replacing: Bool = true,
                                        faults: StorageFaults = StorageFaults(), fill: (MediaFile) throws -> Void) throws {
        let folder = Foundation.open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw writeError(errno, url, doing: action) }
        let descriptor = FileDescriptor(rawValue: folder)
        defer { try? descriptor.close() }
        do {
            try writeAtomically(named: url.lastPathComponent, in: descriptor, shownAs: url, doing: action,
                                replacing: replacing, faults: faults, fill: fill)
        } catch let error as Errno {
            throw writeError(error.rawValue, url, doing: action)
        }
    }

    private static func writeAtomically(named name: String, in folder: FileDescriptor, shownAs url: URL, doing action: String,
                                        replacing: Bool, syncing: Bool = true, syncingFolder: Bool = true, faults: StorageFaults,
                                        fill: (MediaFile) throws -> Void) throws {
        // An unnamed file (O_TMPFILE) where the file system has them: a process killed while it
        // writes leaves nothing behind, not even a hidden temporary file. Elsewhere, a hidden name.
        let unnamed = openat(folder.rawValue, ".", unnamedFile | O_RDWR | O_CLOEXEC, 0o600)
        let temporary = ClipFiles.temporary(for: StoredFile(.library, name)).name
        let descriptor = unnamed >= 0 ? FileDescriptor(rawValue: unnamed) : try create(temporary, in: folder)
        let file = MediaFile(url: url, descriptor: descriptor, writeFault: faults.write)
        var named = unnamed < 0
        do {
            try fill(file)
            if syncing { try file.sync() }
            if replacing, case .other(let kind) = status(name, in: folder) {
                throw CraveyError(.invalidInput, "Refusing to \(action) \(url.path): it is \(kind), not a regular file, and cravey only replaces files.")
            }
            if !named {
                // Its name, from its descriptor (linkat of /proc/self/fd/N follows it to the file).
                let target = replacing ? temporary : name
                guard linkat(AT_FDCWD, "/proc/self/fd/\(descriptor.rawValue)", folder.rawValue, target, AT_SYMLINK_FOLLOW) == 0 else {
                    throw errno == EEXIST && !replacing ? existing(url, action) : Errno(rawValue: errno)
                }
                named = replacing
            } else if !replacing {
                guard linkat(folder.rawValue, temporary, folder.rawValue, name, 0) == 0 else {
                    throw errno == EEXIST ? existing(url, action) : Errno(rawValue: errno)
                }
                unlinkat(folder.rawValue, temporary, 0)
                named = false
            }
            if replacing {
                guard renameat(folder.rawValue, temporary, folder.rawValue, name) == 0 else { throw Errno(rawValue: errno) }
                named = false
            }
            try file.close()
        } catch {
            try? file.close()  // clean-up on a failing path
            if named { unlinkat(folder.rawValue, temporary, 0) }
            throw error
        }
        // The new name on the disk too: written means durable (unless the caller flushes the
        // folder once for several files).
        if syncing, syncingFolder, fsync(folder.rawValue) != 0 { throw Errno(rawValue: errno) }
    }

    private static func existing(_ url: URL, _ action: String) -> CraveyError {
        CraveyError(.invalidInput, "Refusing to \(action) \(url.path): something is there already.", advice: .forceToReplace)
    }

    /// `O_TMPFILE`, which Glibc's Swift overlay does not bring: `__O_TMPFILE | O_DIRECTORY`, with
    /// `__O_TMPFILE` = 020000000 on the architectures cravey builds for (x86-64, arm64).
    private static let unnamedFile: Int32 = 0o20000000 | O_DIRECTORY

    /// The path with every link resolved, nil when it does not exist. The corresponding C
    /// function is `realpath`.
    package static func realPath(_ url: URL) -> String? {
        guard let resolved = realpath(url.path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
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

    // MARK: - Opening

    /// Opens the library folder, creating it (0700, with its parents) when `creating` and it is
    /// missing; nil when it is missing and not to be made. One that exists must be empty or
    /// cravey's: it holds the database, `Recordings/` or the lock file (the database may have
    /// been moved aside, as cravey advises when it is damaged). The corresponding C functions
    /// are `mkdir` and `open` with `O_DIRECTORY`.
    private static func openLibraryFolder(_ url: URL, creating: Bool, databaseName: String) throws(CraveyError) -> FileDescriptor? {
        if creating, mkdir(url.path, 0o700) != 0, errno == ENOENT {
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw CraveyError(.cannotWrite, "Cannot create the library folder \(url.path): \(error.localizedDescription).",
                                  advice: .chooseLibrary, underlying: error)
            }
        }
        let descriptor = Foundation.open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT {
                if !creating { return nil }
                throw CraveyError(.notFound, "The library folder \(url.path) does not exist.")
            }
            if code == ENOTDIR {
                throw CraveyError(.cannotWrite, "Cannot use \(url.path) as the library: it is not a folder.", advice: .chooseLibrary)
            }
            throw writeError(code, url, doing: "open the library folder")
        }
        let root = FileDescriptor(rawValue: descriptor)
        let names = Set(entries(of: root).map { String(decoding: $0.name, as: UTF8.self) })
        guard names.isEmpty || !names.isDisjoint(with: [databaseName, "Recordings", WritersLock.fileName]) else {
            try? root.close()
            throw CraveyError(.invalidInput, "\(url.path) holds other files and is not a cravey library: cravey keeps its library only in a new or empty folder, so that nothing of yours is mixed with its files.",
                              advice: .chooseEmptyFolder)
        }
        return root
    }

    /// Opens the folder `name` beneath `parent`, never through a link, creating it (0700) first
    /// when `creating`; nil when it is missing and not to be made, or cannot be made (a
    /// read-only library keeps reading). The corresponding C functions are `mkdirat` and `openat`
    /// with `O_DIRECTORY | O_NOFOLLOW`.
    private static func folder(_ name: String, in parent: FileDescriptor, creating: Bool, shownAs url: URL) throws(CraveyError) -> FileDescriptor? {
        if creating {
            if mkdirat(parent.rawValue, name, 0o700) == 0 {
                fsync(parent.rawValue)  // the new folder's name on the disk too
            } else if ![EEXIST, EROFS, EACCES, EPERM].contains(errno) {
                throw writeError(errno, url, doing: "create the folder")
            }
        }
        let descriptor = openat(parent.rawValue, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT: return nil
            case ELOOP, ENOTDIR:
                throw CraveyError(.cannotWrite, "Refusing to use the library: \(url.path) is a symbolic link or not a folder, and cravey never follows a link out of the library folder.",
                                  advice: .moveAside(url.path), underlying: Errno(rawValue: errno))
            default:
                throw writeError(errno, url, doing: "open the folder")
            }
        }
        return FileDescriptor(rawValue: descriptor)
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
}

/// Faults injected by tests into file operations; empty in production.
package struct StorageFaults: Sendable {
    /// Called before every file removal; throwing makes the removal fail.
    package var removal: (@Sendable (StoredFile) throws(Errno) -> Void)?
    /// Called instead of `write` by the atomic writes and media files: returning fewer bytes
    /// than it was given makes a short write.
    package var write: Write?
    package typealias Write = @Sendable (FileDescriptor, UnsafeRawBufferPointer) throws(Errno) -> Int
    /// Called before a file in `Recordings/` is renamed over `destination`; throwing makes the
    /// rename fail.
    package var replacement: (@Sendable (StoredFile) throws(Errno) -> Void)?

    package init(removal: (@Sendable (StoredFile) throws(Errno) -> Void)? = nil, write: Write? = nil,
                 replacement: (@Sendable (StoredFile) throws(Errno) -> Void)? = nil) {
        self.removal = removal
        self.write = write
        self.replacement = replacement
    }

    /// A write that takes at most `count` bytes a call, as a kernel may: for tests that check
    /// writes loop.
    package static func writesTakingAtMost(_ count: Int) -> Write {
        { descriptor, bytes throws(Errno) in
            do {
                return try descriptor.write(UnsafeRawBufferPointer(rebasing: bytes.prefix(count)))
            } catch {
                throw error as? Errno ?? .ioError
            }
        }
    }
}
