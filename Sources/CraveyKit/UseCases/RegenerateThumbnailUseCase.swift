import Foundation

/// Makes a video's thumbnail again (`cravey thumbnail`): at 10% of its length as at import, or
/// at a time asked for; stored in the library in place of the old one, or written elsewhere.
public struct RegenerateThumbnailUseCase: Sendable {
    let library: RecordingLibrary

    public init(library: RecordingLibrary) {
        self.library = library
    }

    /// Makes `recording`'s thumbnail (at `time` seconds, else at 10% skipping dark frames) and
    /// stores it: the file `Recordings/Thumbnails/video_<uuid>.jpg` replaced in one rename and
    /// the row pointing at it, together under the writers' lock, so every other process sees
    /// the old thumbnail or the new one. A thumbnail the row kept under another name goes.
    /// Returns the row as it now is.
    ///
    /// Throws ``CraveyError``: `.invalidInput` for an audio recording or a time past the end,
    /// `.notFound` for a missing file (or a row deleted meanwhile), `.undecodableMedia` when no
    /// picture decodes. Nothing changes then.
    public func execute(_ recording: Recording, at time: Double? = nil) throws -> Recording {
        // Decoded before the lock is taken: others wait for the store only.
        let jpeg = try picture(of: recording, at: time)
        let storage = library.storage
        return try library.exclusively {
            guard let current = try library.repository.fetch(id: recording.id) else {
                throw CraveyError(.notFound, "\"\(recording.title)\" is no longer in the library.")
            }
            let relative = FileStorageManager.thumbnailPath(for: recording.id)
            try storage.writeAtomically(jpeg, to: relative, doing: "write the thumbnail")
            guard current.thumbnailPath != relative else { return current }
            let updated = try library.repository.updateThumbnail(of: recording.id, to: relative)
            if let old = current.thumbnailPath { try? storage.deleteThumbnail(at: old) }
            return updated
        }
    }

    /// Makes `recording`'s thumbnail and writes it to `url` instead, changing nothing in the
    /// library; refused as `export --output` is (inside the library, something already there
    /// without `force`, anything not a regular file even with it: `.invalidInput`).
    public func execute(_ recording: Recording, at time: Double? = nil, to url: URL, force: Bool = false) throws {
        try library.storage.writeOutside(try picture(of: recording, at: time), to: url,
                                         doing: "write the thumbnail to", replacing: force)
    }

    /// The JPEG of `recording`'s video at `time`.
    private func picture(of recording: Recording, at time: Double?) throws(CraveyError) -> Data {
        guard recording.type == .video else {
            throw CraveyError(.invalidInput, "\"\(recording.title)\" is an audio recording: only a video has a thumbnail.")
        }
        let url = try library.storage.mediaURL(of: recording)
        return try Thumbnailer.jpeg(forVideoAt: url, at: time)
    }
}
