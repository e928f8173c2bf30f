import Foundation

extension FileStorageManager {
    /// Makes the JPEG thumbnail of a video (320 px wide, aspect and rotation kept, a frame at 10%
    /// of the duration that is not black) under `Recordings/Thumbnails/`, mode 0600. Returns its
    /// path relative to the library.
    public func generateThumbnail(forVideoAt url: URL, id: UUID) throws(CraveyError) -> String {
        let jpeg = try Thumbnailer.jpeg(forVideoAt: url)
        let relative = "\(Self.thumbnailsFolder)/video_\(id.uuidString.lowercased()).jpg"
        let destination = libraryURL.appendingPathComponent(relative)
        let temporary = thumbnailsURL.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.writeError(errno, destination, doing: "write the thumbnail") }
        let written = jpeg.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let code = errno
        close(descriptor)
        guard written == jpeg.count, rename(temporary.path, destination.path) == 0 else {
            let failure = written == jpeg.count ? errno : code
            unlink(temporary.path)
            throw Self.writeError(failure, destination, doing: "write the thumbnail")
        }
        return relative
    }
}
