import Foundation

extension RecordingLibrary {
    /// Brings an existing media file into the library and returns its row: any audio or video
    /// FFmpeg reads, kept as it is when it is AAC (and H.264) in MP4, converted otherwise, with
    /// a thumbnail for a video and its loudness measured. The file itself is left where it is.
    ///
    /// Cancelling the task stops the import and leaves nothing in the library (it throws
    /// `CancellationError`), unless the clip was saved already: then it is returned as usual.
    ///
    /// Throws ``CraveyError``: `.notFound` when there is no file, `.invalidInput` for a named pipe,
    /// a folder or a device, `.undecodableMedia` for what is not media or is damaged (nothing is
    /// stored then), `.cannotWrite` when the library cannot take it.
    public func importFile(at source: URL, metadata: RecordingMetadata, createdAt: Date = Date()) async throws -> Recording {
        try await Importer.importFile(at: source, into: store, metadata: metadata, createdAt: createdAt)
    }
}
