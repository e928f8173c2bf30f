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
        if let refusal = store.refusal { throw refusal }
        let id = RecordingID()
        let store = store
        let outcome = Completion<Recording>()
        Task {
            do {
                outcome.resolve(.success(try await onDedicatedThread(named: "cravey.import") {
                    try Importer.importFile(source, into: store, id: id, metadata: metadata, createdAt: createdAt)
                }))
            } catch {
                // Given up meanwhile: whatever stopped the work, the import was cancelled.
                outcome.resolve(.failure(store.isAbandoned(id) ? CancellationError() : error))
            }
        }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            // Under the writers' lock: a save under way completes first, and then the clip stays.
            // An abandon that cannot take the lock leaves the import to finish or fail by itself.
            if (try? store.abandon(id)) == true { outcome.resolve(.failure(CancellationError())) }
        }
    }
}
