import Foundation

extension RecordingLibrary {
    /// Makes a video's thumbnail again (a 320 px JPEG: at 10% of its length skipping dark
    /// frames, as when it was saved, or the picture at `time` seconds) and stores it in place of
    /// the old one, the file and the row together, so every other process sees the old thumbnail
    /// or the new one. Returns the row as it now is.
    ///
    /// Throws ``CraveyError``: `.invalidInput` for an audio recording or a time past the end,
    /// `.notFound` for a missing file (or a row deleted meanwhile), `.undecodableMedia` when no
    /// picture decodes. Nothing changes then. Blocking: decoding; call it off the cooperative pool.
    @discardableResult
    public func makeThumbnail(of recording: Recording, at time: Double? = nil) throws -> Recording {
        // Decoded before the lock is taken: others wait for the store only.
        let jpeg = try thumbnail(of: recording, at: time)
        return try storage.replaceThumbnail(of: recording.id, title: recording.title, with: jpeg)
    }

    /// Makes `recording`'s thumbnail as ``makeThumbnail(of:at:)`` does and writes it to a new
    /// file at `url` (mode 0600) instead, changing nothing in the library. Refused
    /// (`.invalidInput`): a place inside the library folder, something already at `url` unless
    /// `replacing`, and anything there that is not a regular file even then.
    public func writeThumbnail(of recording: Recording, at time: Double? = nil, to url: URL, replacing: Bool = false) throws {
        try storage.writeOutside(try thumbnail(of: recording, at: time), to: url, doing: "write the thumbnail to",
                                 replacing: replacing)
    }

    /// The JPEG of `recording`'s video at `time`.
    private func thumbnail(of recording: Recording, at time: Double?) throws(CraveyError) -> Data {
        guard recording.type == .video else {
            throw CraveyError(.invalidInput, "\"\(recording.title)\" is an audio recording: only a video has a thumbnail.")
        }
        return try Thumbnailer.jpeg(forVideoAt: storage.media(try storage.mediaURL(of: recording)), at: time)
    }
}
