import Foundation
import SystemPackage

extension FileStorageManager {
    /// The relative path a recording of this type and id is stored at: `Recordings/audio_<uuid>.m4a`.
    package func relativePath(for id: UUID, type: RecordingType) -> String {
        "\(Self.recordingsFolder)/\(type.rawValue)_\(id.uuidString.lowercased()).\(type.fileExtension)"
    }

    /// Where the thumbnail of the video `id` is kept: `Recordings/Thumbnails/video_<uuid>.jpg`.
    package static func thumbnailPath(for id: UUID) -> String {
        "\(thumbnailsFolder)/video_\(id.uuidString.lowercased()).jpg"
    }

    /// Where a recording in progress is written, inside the library so a crash leaves it findable.
    package func partialURL(for id: UUID, type: RecordingType) -> URL {
        url(of: relativePath(for: id, type: type) + Self.partialSuffix)
    }

    /// Where an import in progress is written. Unlike a cut-off recording, an import cut off is
    /// worth nothing (the person still has the file): whoever finds one no process holds removes it.
    package func importingURL(for id: UUID, type: RecordingType) -> URL {
        url(of: relativePath(for: id, type: type) + Self.importingSuffix)
    }

    /// The name a rewritten version of `url` is written under until it replaces `url`.
    package static func finishingURL(for url: URL) -> URL {
        URL(fileURLWithPath: url.path + finishingSuffix, isDirectory: false)
    }

    /// What a file in `Recordings/` or `Thumbnails/` is by cravey's naming scheme; nil for a name
    /// cravey never gives (a person's file, a cover picture, a name that is not UTF-8): such
    /// files are never deleted, renamed or registered, only reported.
    package enum StoredName: Equatable, Sendable {
        /// A clip's media: finished (no suffix), or being recorded, imported or rewritten.
        case media(type: RecordingType, id: UUID, suffix: String)
        /// A video's thumbnail.
        case thumbnail(id: UUID)
        /// A clip's own copy of its words and plays (``metadataPath(for:type:)``).
        case metadata(type: RecordingType, id: UUID)
        /// A clip's waveform (``waveformPath(for:type:)``).
        case waveform(type: RecordingType, id: UUID)
        /// A file being deleted (``markForDeletion(_:)``), named after what it was.
        case deleting(original: String)
        /// A temporary file of an atomic write (``writeAtomically(_:to:doing:)``).
        case temporary
    }

    /// Parses a name of `folder` by cravey's scheme: `audio_<uuid>.m4a` and `video_<uuid>.mp4`
    /// (lowercase ids; an extension that matches the type) with `.partial`, `.importing` or
    /// `.finishing` after them, a clip's `<type>_<uuid>.json` and `<type>_<uuid>.peaks.dat`,
    /// `video_<uuid>.jpg` in `Thumbnails/`, `.deleting-` before any of those, and an atomic
    /// write's `.<name>.<UUID>.tmp`.
    package static func storedName(_ name: String, in folder: Folder) -> StoredName? {
        if name.hasPrefix(deletingPrefix) {
            let original = String(name.dropFirst(deletingPrefix.count))
            return storedName(original, in: folder).map { _ in .deleting(original: original) }
        }
        if name.hasPrefix("."), name.hasSuffix(".tmp") {
            let parts = name.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count >= 3, UUID(uuidString: String(parts[parts.count - 2])) != nil else { return nil }
            let original = parts.dropLast(2).joined(separator: ".")
            return storedName(original, in: folder).map { _ in .temporary }
        }
        let stem = stem(of: name)
        let (prefix, idText) = (stem.prefix { $0 != "_" }, stem.drop { $0 != "_" }.dropFirst())
        guard idText.count == 36, idText == idText.lowercased(), let id = UUID(uuidString: String(idText)),
              let type = RecordingType(rawValue: String(prefix)) else { return nil }
        let rest = String(name.dropFirst(stem.count))
        switch folder {
        case .thumbnails:
            return type == .video && rest == ".jpg" ? .thumbnail(id: id) : nil
        case .recordings:
            if rest == ".json" { return .metadata(type: type, id: id) }
            if rest == waveformSuffix { return .waveform(type: type, id: id) }
            let ext = "." + type.fileExtension
            guard rest.hasPrefix(ext) else { return nil }
            let suffix = String(rest.dropFirst(ext.count))
            let allowed = ["", partialSuffix, importingSuffix, finishingSuffix,
                           partialSuffix + finishingSuffix, importingSuffix + finishingSuffix]
            return allowed.contains(suffix) ? .media(type: type, id: id, suffix: suffix) : nil
        case .library:
            return nil
        }
    }

    /// Whether `name` is a file still being written, which holds a lock while its writer lives.
    static func isLiveName(_ name: String) -> Bool {
        name.hasSuffix(partialSuffix) || name.hasSuffix(finishingSuffix) || name.hasSuffix(importingSuffix)
    }

    /// `video_<uuid>` for `video_<uuid>.mp4.partial` or `video_<uuid>.jpg`.
    package static func stem(of name: String) -> String {
        String(name.prefix { $0 != "." })
    }

    /// Where a path stored in the library points, unchecked and without touching the disk (unlike
    /// `appendingPathComponent`, which stats it). Use ``absoluteURL(for:)`` for paths read from rows.
    package func url(of relativePath: String) -> URL {
        URL(fileURLWithPath: libraryURL.path + "/" + relativePath, isDirectory: false)
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
            throw CraveyError(.invalidInput, "Refusing the stored path '\(relativePath)': it points outside the library's Recordings/ folder in \(libraryURL.path).",
                              advice: .repairLibrary)
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

    /// The folder and name of a place inside the library, or EINVAL for any other place.
    func located(_ url: URL) throws(Errno) -> (folder: Folder, name: String) {
        do throws(CraveyError) {
            return try locate(url)
        } catch {
            throw .invalidArgument
        }
    }

    /// The absolute location of a path stored in the library, refusing anything that would leave
    /// the library folder: absolute paths, `..`, paths outside `Recordings/`, and links (a stored
    /// file must be a regular file, looked at beneath the folder's descriptor without following).
    package func absoluteURL(for relativePath: String) throws(CraveyError) -> URL {
        let (folder, name) = try locate(relativePath)
        let info = try withFolder(folder) { descriptor in
            var info = stat()
            return fstatat(descriptor.rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
        }
        if let info, info.st_mode & S_IFMT != S_IFREG {
            throw CraveyError(.invalidInput, "Refusing '\(relativePath)': it is a link or not a regular file, and cravey never follows a link out of the library folder \(libraryURL.path).",
                              advice: .repairLibrary)
        }
        return url(of: relativePath)
    }

    /// The location of `recording`'s media file, which must be there: `.notFound` when it is
    /// missing, and refused as ``absoluteURL(for:)`` refuses a path leaving the library.
    package func mediaURL(of recording: Recording) throws(CraveyError) -> URL {
        let url = try absoluteURL(for: recording.filePath)
        guard size(of: url) != nil else {
            throw CraveyError(.notFound, "The file of \"\(recording.title)\" is missing: \(url.path).", advice: .checkLibrary)
        }
        return url
    }

    /// The size in bytes of a stored file; `.notFound` when it is missing.
    package func fileSize(at relativePath: String) throws(CraveyError) -> Int64 {
        let url = try absoluteURL(for: relativePath)
        guard let size = size(of: url) else {
            throw CraveyError(.notFound, "The file \(url.path) is missing.", advice: .checkLibrary)
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

    /// Opens a stored file for reading, beneath its folder's descriptor and never through a
    /// link, so a reader (FFmpeg) never re-opens a path that something could have swapped.
    /// Throws `.notFound` when it is missing. The corresponding C function is `openat` with
    /// `O_RDONLY | O_NOFOLLOW`.
    package func openForReading(_ url: URL) throws(CraveyError) -> FileDescriptor {
        let (folder, name) = try locate(url)
        let directory = try openFolder(folder)
        defer { try? directory.close() }
        let descriptor = openat(directory.rawValue, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { throw CraveyError(.notFound, "No file at \(url.path).") }
            if code == ELOOP {
                throw CraveyError(.invalidInput, "Refusing \(url.path): it is a link, and cravey never follows a link out of the library folder \(libraryURL.path).",
                                  advice: .repairLibrary)
            }
            throw CraveyError(.other, "Cannot read \(url.path): \(String(cString: strerror(code))).", underlying: Errno(rawValue: code))
        }
        return FileDescriptor(rawValue: descriptor)
    }

    /// The bytes of a stored file, read beneath its folder's descriptor and never through a
    /// link; nil when it is missing, cannot be read or holds more than `limit` bytes.
    package func contents(of url: URL, atMost limit: Int) -> Data? {
        guard let descriptor = try? openForReading(url) else { return nil }
        defer { try? descriptor.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            guard let count = try? buffer.withUnsafeMutableBytes({ try descriptor.read(into: $0) }) else { return nil }
            if count == 0 { return data }
            guard data.count + count <= limit else { return nil }
            data.append(contentsOf: buffer.prefix(count))
        }
    }
}
