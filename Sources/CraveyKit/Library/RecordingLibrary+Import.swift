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

    /// ``importFile(at:metadata:createdAt:)`` on the calling thread, which it blocks; no cancellation.
    package func importNow(at source: URL, metadata: RecordingMetadata, createdAt: Date = Date()) throws -> Recording {
        try Importer.importFile(source, into: store, id: RecordingID(), metadata: metadata, createdAt: createdAt)
    }

    /// The title a clip imported without one gets: its file's name without the extension
    /// ("coach-talk" for coach-talk.mp3), which tells clips apart where the date does not.
    ///
    /// Each run of control characters (C0 and C1) becomes a space. A name longer than
    /// ``RecordingMetadata/maxTitleLength`` characters is shortened at its last word boundary
    /// (whitespace, '-' or '_') within the first 39 and ends in "…"; with no boundary there it is
    /// cut at 39. Nobody typed it, so this cuts none of a person's input. nil when nothing is
    /// left (".m4a", "  .wav"): the clip gets the automatic "Recording <date>" title.
    public static func title(forFileAt source: URL) -> String? {
        let name = source.lastPathComponent
        let stem = name.lastIndex(of: ".").map { name[..<$0] } ?? name[...]
        var cleaned = String.UnicodeScalarView()
        for scalar in stem.unicodeScalars {
            if scalar.properties.generalCategory != .control {
                cleaned.append(scalar)
            } else if cleaned.last != " " {
                cleaned.append(" ")
            }
        }
        let title = String(cleaned).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { return nil }
        guard title.count > RecordingMetadata.maxTitleLength else { return title }
        let isBoundary = { (character: Character) in character.isWhitespace || character == "-" || character == "_" }
        let head = title.prefix(RecordingMetadata.maxTitleLength - 1)
        var kept = head
        // A boundary right after the 39 characters means they end with a whole word.
        if !isBoundary(title[head.endIndex]), let boundary = head.lastIndex(where: isBoundary) {
            kept = head[..<boundary]
        }
        while let last = kept.last, isBoundary(last) { kept = kept.dropLast() }
        return String(kept.isEmpty ? head : kept) + "…"
    }
}
