import Foundation

extension FileStorageManager {
    /// Makes the JPEG thumbnail of a video (320 px wide, aspect and rotation kept, a frame at 10%
    /// of the duration that is not black) under `Recordings/Thumbnails/`, mode 0600. Returns its
    /// path relative to the library.
    public func generateThumbnail(forVideoAt url: URL, id: UUID) throws(CraveyError) -> String {
        let jpeg = try Thumbnailer.jpeg(forVideoAt: url)
        let relative = Self.thumbnailPath(for: id)
        try writeAtomically(jpeg, to: relative, doing: "write the thumbnail")
        return relative
    }

    /// Where the thumbnail of the video `id` is kept: `Recordings/Thumbnails/video_<uuid>.jpg`.
    public static func thumbnailPath(for id: UUID) -> String {
        "\(thumbnailsFolder)/video_\(id.uuidString.lowercased()).jpg"
    }
}
