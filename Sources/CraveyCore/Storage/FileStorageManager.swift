import Foundation
import SystemPackage

/// Keeps the library's media files: the `Recordings/` layout, moves into place, confined path
/// resolution, sizes, durations and deletion.
///
/// Folders are created mode 0700 and files 0600: the clips are private. It alone names, creates,
/// renames and removes the media files (`FileStorageManager+Files.swift`); writers only write.
public struct FileStorageManager: Sendable {
    public static let recordingsFolder = "Recordings"
    public static let thumbnailsFolder = "Recordings/Thumbnails"
    /// The suffix of a file still being written; `doctor` finds those left by a crash.
    public static let partialSuffix = ".partial"
    /// The suffix of an import still being written (``importingURL(for:type:)``).
    public static let importingSuffix = ".importing"

    /// The library folder.
    public let libraryURL: URL
    /// Faults a test injects; none in production.
    package var faults = StorageFaults()

    public init(libraryURL: URL) {
        self.libraryURL = libraryURL.standardizedFileURL
    }

    public var recordingsURL: URL { libraryURL.appendingPathComponent(Self.recordingsFolder, isDirectory: true) }
    public var thumbnailsURL: URL { libraryURL.appendingPathComponent(Self.thumbnailsFolder, isDirectory: true) }

    /// The library folder and the two folders under it.
    public enum Folder: Sendable, CaseIterable {
        case library, recordings, thumbnails
    }

    /// Creates the library folders (mode 0700, from their creation) where they are missing and
    /// checks the ones that exist, changing nothing about them: `Recordings/` and `Thumbnails/`
    /// must be real folders, not links. Returns the warnings a person should read once: a library
    /// other users can read or write, or one owned by someone else (as ssh's StrictModes warns).
    ///
    /// A folder that cannot be created because the library is read-only is left missing: reading
    /// works, and every write fails later with `.cannotWrite`.
    @discardableResult
    public func prepare() throws(CraveyError) -> [String] {
        if mkdir(libraryURL.path, 0o700) != 0 && errno != EEXIST {
            if errno == ENOENT {
                try createIntermediate(libraryURL)
            } else if ![EROFS, EACCES, EPERM].contains(errno) {
                throw Self.writeError(errno, libraryURL, doing: "create the folder")
            }
        }
        let root = try openFolder(.library)
        defer { try? root.close() }
        try makeFolder(Self.recordingsFolder, in: root, .recordings)
        do throws(CraveyError) {
            let recordings = try openFolder(.recordings)
            defer { try? recordings.close() }
            try makeFolder("Thumbnails", in: recordings, .thumbnails)
            let thumbnails = try openFolder(.thumbnails)
            try? thumbnails.close()
        } catch where error.kind == .notFound {
            // A read-only library without its folders: there is nothing to read in them.
        }
        return warnings(about: root)
    }

    /// Creates `name` (0700) beneath `parent` unless something is there already or the library
    /// is read-only. The corresponding C function is `mkdirat`.
    private func makeFolder(_ name: String, in parent: FileDescriptor, _ folder: Folder) throws(CraveyError) {
        if mkdirat(parent.rawValue, name, 0o700) != 0, ![EEXIST, EROFS, EACCES, EPERM].contains(errno) {
            throw Self.writeError(errno, url(of: folder), doing: "create the folder")
        }
    }

    /// ssh-style warnings about who else can reach the library.
    private func warnings(about root: FileDescriptor) -> [String] {
        var info = stat()
        guard fstat(root.rawValue, &info) == 0 else { return [] }
        var warnings: [String] = []
        let path = libraryURL.path
        if info.st_uid != geteuid() {
            warnings.append("the library folder \(path) belongs to user \(info.st_uid), not to you (user \(geteuid())): they can read and change your clips. If that is not meant, move your library, or run `chown -R \(geteuid()) '\(path)'`.")
        }
        if info.st_mode & 0o077 != 0 {
            warnings.append("the library folder \(path) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); its clips are private. Run `chmod 700 '\(path)'`.")
        }
        return warnings
    }

    private func createIntermediate(_ url: URL) throws(CraveyError) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw CraveyError(.cannotWrite, "Cannot create the library folder \(url.path): \(error.localizedDescription). Choose a writable place with --library PATH.", underlying: error)
        }
    }

    /// Where a folder of the library is, for messages.
    public func url(of folder: Folder) -> URL {
        switch folder {
        case .library: libraryURL
        case .recordings: recordingsURL
        case .thumbnails: thumbnailsURL
        }
    }

    /// Opens a folder of the library for reading its entries and as the base of `*at` calls:
    /// the library folder by its path (a link there is the person's choice), `Recordings/`
    /// beneath it and `Thumbnails/` beneath that, neither through a link. Throws `.notFound`
    /// when a folder is missing and `.cannotWrite` when one is a link or not a folder.
    ///
    /// The corresponding C functions are `open` and `openat` with `O_DIRECTORY | O_NOFOLLOW`.
    package func openFolder(_ folder: Folder) throws(CraveyError) -> FileDescriptor {
        let root = open(libraryURL.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else {
            let code = errno
            if code == ENOENT { throw CraveyError(.notFound, "The library folder \(libraryURL.path) does not exist.") }
            if code == ENOTDIR { throw CraveyError(.cannotWrite, "Cannot use \(libraryURL.path) as the library: it is not a folder. Choose a folder with --library PATH.") }
            throw Self.writeError(code, libraryURL, doing: "open the library folder")
        }
        var current = FileDescriptor(rawValue: root)
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
                    throw CraveyError(.cannotWrite, "Refusing to use the library: \(place) is a symbolic link or not a folder, and cravey never follows a link out of the library folder. Move it aside (mv '\(place)' '\(place).moved'); the next command creates a real folder.", underlying: Errno(rawValue: code))
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

    /// The folder and the single name a stored path stands for: `Recordings/<name>` or
    /// `Recordings/Thumbnails/<name>`. Anything else (absolute, `..`, deeper, empty) is refused,
    /// so every stored path is resolved beneath the library folder's own descriptor.
    package func locate(_ relativePath: String) throws(CraveyError) -> (folder: Folder, name: String) {
        let parts = relativePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let located: (Folder, String)? = switch parts.count {
        case 2 where parts[0] == Self.recordingsFolder && parts[1] != "Thumbnails": (.recordings, parts[1])
        case 3 where parts[0] == Self.recordingsFolder && parts[1] == "Thumbnails": (.thumbnails, parts[2])
        default: nil
        }
        guard let located, !["", ".", ".."].contains(located.1) else {
            throw CraveyError(.invalidInput, "Refusing the stored path '\(relativePath)': it points outside the library's Recordings/ folder in \(libraryURL.path). Run `cravey doctor --repair` to remove such rows.")
        }
        return located
    }

    /// ``locate(_:)`` for a location inside the library built by ``url(of:)-(String)``.
    package func locate(_ url: URL) throws(CraveyError) -> (folder: Folder, name: String) {
        let prefix = libraryURL.path + "/"
        guard url.path.hasPrefix(prefix) else {
            throw CraveyError(.invalidInput, "Refusing \(url.path): it is outside the library folder \(libraryURL.path).")
        }
        return try locate(String(url.path.dropFirst(prefix.count)))
    }

    /// Where a path stored in the library points, unchecked and without touching the disk (unlike
    /// `appendingPathComponent`, which stats it). Use ``absoluteURL(for:)`` for paths read from rows.
    package func url(of relativePath: String) -> URL {
        URL(fileURLWithPath: libraryURL.path + "/" + relativePath, isDirectory: false)
    }

    /// The relative path a recording of this type and id is stored at, for example `Recordings/audio_<UUID>.m4a`.
    public func relativePath(for id: UUID, type: RecordingType) -> String {
        "\(Self.recordingsFolder)/\(type.rawValue)_\(id.uuidString.lowercased()).\(type.fileExtension)"
    }

    /// Where a recording in progress is written, inside the library so a crash leaves it findable.
    public func partialURL(for id: UUID, type: RecordingType) -> URL {
        url(of: relativePath(for: id, type: type) + Self.partialSuffix)
    }

    /// Where an import in progress is written. Unlike a cut-off recording, an import cut off is
    /// worth nothing (the person still has the file): whoever finds one no process holds removes it.
    public func importingURL(for id: UUID, type: RecordingType) -> URL {
        url(of: relativePath(for: id, type: type) + Self.importingSuffix)
    }

    /// Moves a finished file into `Recordings/` under its final name in one rename (never a second
    /// copy). The file was created there, 0600 from its first byte (``create(_:)``), so it keeps
    /// its mode. Returns the path relative to the library folder.
    public func saveRecording(from temporaryURL: URL, type: RecordingType, id: UUID = UUID()) throws(CraveyError) -> String {
        let relative = relativePath(for: id, type: type)
        let destination = url(of: relative)
        do throws(Errno) {
            try moveFile(temporaryURL, to: destination)
        } catch {
            throw Self.writeError(error.rawValue, destination, doing: "move the recording to")
        }
        return relative
    }

    /// The absolute location of a path stored in the library, refusing anything that would leave
    /// the library folder: absolute paths, `..`, paths outside `Recordings/`, and links (a stored
    /// file must be a regular file, looked at beneath the folder's descriptor without following).
    public func absoluteURL(for relativePath: String) throws(CraveyError) -> URL {
        let (folder, name) = try locate(relativePath)
        let info = try withFolder(folder) { descriptor in
            var info = stat()
            return fstatat(descriptor.rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
        }
        if let info, info.st_mode & S_IFMT != S_IFREG {
            throw CraveyError(.invalidInput, "Refusing '\(relativePath)': it is a link or not a regular file, and cravey never follows a link out of the library folder \(libraryURL.path). Run `cravey doctor --repair`.")
        }
        return url(of: relativePath)
    }

    /// The location of `recording`'s media file, which must be there: `.notFound` (exit 66) when
    /// it is missing, and refused as ``absoluteURL(for:)`` refuses a path leaving the library.
    public func mediaURL(of recording: Recording) throws(CraveyError) -> URL {
        let url = try absoluteURL(for: recording.filePath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CraveyError(.notFound, "The file of \"\(recording.title)\" is missing: \(url.path). Run `cravey doctor` to check the library.")
        }
        return url
    }

    /// The size in bytes of a stored file.
    public func fileSize(at relativePath: String) throws(CraveyError) -> Int64 {
        let url = try absoluteURL(for: relativePath)
        guard let size = size(of: url) else {
            throw CraveyError(.notFound, "The file \(url.path) is missing. Run `cravey doctor` to check the library.")
        }
        return size
    }

    /// The size of the regular file at a location inside the library, nil when there is none
    /// (a link is none). The corresponding C function is `fstatat` with `AT_SYMLINK_NOFOLLOW`.
    package func size(of url: URL) -> Int64? {
        guard let (folder, name) = try? locate(url) else { return nil }
        return try? withFolder(folder) { descriptor in
            var info = stat()
            guard fstatat(descriptor.rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0,
                  info.st_mode & S_IFMT == S_IFREG else { return nil }
            return Int64(info.st_size)
        }
    }

    /// Bytes used by every file under `Recordings/`, thumbnails included.
    public func totalStorageUsed() -> Int64 {
        storedFilesWithSizes().reduce(0) { $0 + $1.size }
    }

    /// Bytes as a person reads them: "512 bytes", "1.5 MB" (decimal units, as file managers show).
    public static func formatBytes(_ bytes: Int64) -> String {
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

    package static func writeError(_ code: Int32, _ url: URL, doing action: String) -> CraveyError {
        let reason = String(cString: strerror(code))
        let fix = switch code {
        case ENOSPC, EDQUOT: "Free some disk space and try again."
        case EACCES, EPERM, EROFS: "Check the folder's permissions, or choose another library with --library PATH."
        default: "Check the library folder."
        }
        return CraveyError(.cannotWrite, "Cannot \(action) \(url.path): \(reason). \(fix)", underlying: Errno(rawValue: code))
    }
}
