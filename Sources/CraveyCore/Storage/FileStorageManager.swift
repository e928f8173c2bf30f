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

    /// The library folder.
    public let libraryURL: URL
    /// Faults a test injects; none in production.
    package var faults = StorageFaults()

    public init(libraryURL: URL) {
        self.libraryURL = libraryURL.standardizedFileURL
    }

    public var recordingsURL: URL { libraryURL.appendingPathComponent(Self.recordingsFolder, isDirectory: true) }
    public var thumbnailsURL: URL { libraryURL.appendingPathComponent(Self.thumbnailsFolder, isDirectory: true) }

    /// Creates the library folders (mode 0700) if they are missing and tightens their mode.
    public func prepare() throws(CraveyError) {
        for url in [libraryURL, recordingsURL, thumbnailsURL] {
            if mkdir(url.path, 0o700) != 0 && errno != EEXIST {
                if errno == ENOENT {
                    try createIntermediate(url)
                } else {
                    throw Self.writeError(errno, url, doing: "create the folder")
                }
            }
            chmod(url.path, 0o700)
        }
    }

    private func createIntermediate(_ url: URL) throws(CraveyError) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw CraveyError(.cannotWrite, "Cannot create the library folder \(url.path): \(error.localizedDescription). Choose a writable place with --library PATH.", underlying: error)
        }
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

    /// Moves a finished file into `Recordings/` under its final name in one rename (never a second
    /// copy). The file was created there, 0600 from its first byte (``create(_:)``), so it keeps
    /// its mode. Returns the path relative to the library folder.
    public func saveRecording(from temporaryURL: URL, type: RecordingType, id: UUID = UUID()) throws(CraveyError) -> String {
        let relative = relativePath(for: id, type: type)
        let destination = url(of: relative)
        do throws(Errno) {
            try Self.moveFile(temporaryURL, to: destination)
        } catch {
            throw Self.writeError(error.rawValue, destination, doing: "move the recording to")
        }
        return relative
    }

    /// The absolute location of a path stored in the library, refusing anything that would leave
    /// the library folder: absolute paths, `..`, and symbolic links pointing outside.
    public func absoluteURL(for relativePath: String) throws(CraveyError) -> URL {
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: true)
        guard !relativePath.hasPrefix("/"), !components.isEmpty,
              !components.contains(where: { $0 == ".." || $0 == "." }) else {
            throw CraveyError(.invalidInput, "Refusing the stored path '\(relativePath)': it points outside the library folder \(libraryURL.path). Run `cravey doctor --repair` to remove such rows.")
        }
        let url = url(of: relativePath)
        guard let root = realPath(libraryURL.path) else {
            throw CraveyError(.notFound, "The library folder \(libraryURL.path) does not exist.")
        }
        // The folder holding the file must resolve inside the library; the file itself, if it is a
        // link, must too.
        let parent = url.deletingLastPathComponent().path
        if let resolvedParent = realPath(parent), !Self.isInside(resolvedParent, root) {
            throw CraveyError(.invalidInput, "Refusing '\(relativePath)': its folder resolves outside the library folder \(libraryURL.path).")
        }
        if let resolved = realPath(url.path), !Self.isInside(resolved, root) {
            throw CraveyError(.invalidInput, "Refusing '\(relativePath)': it is a link to \(resolved), outside the library folder \(libraryURL.path).")
        }
        return url
    }

    /// The size in bytes of a stored file.
    public func fileSize(at relativePath: String) throws(CraveyError) -> Int64 {
        let url = try absoluteURL(for: relativePath)
        guard let size = Self.size(of: url) else {
            throw CraveyError(.notFound, "The file \(url.path) is missing. Run `cravey doctor` to check the library.")
        }
        return size
    }

    /// The size of the file at `url`, nil when there is none.
    package static func size(of url: URL) -> Int64? {
        var info = stat()
        return stat(url.path, &info) == 0 ? Int64(info.st_size) : nil
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

    static func isInside(_ path: String, _ root: String) -> Bool {
        path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    private func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
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
