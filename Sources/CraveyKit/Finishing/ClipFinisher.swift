import Foundation

/// Finishes a file into the library: the one function a recording, an import, a restore's and
/// a repair's recovery all go through, so a change to how a clip is finished is made once.
///
/// In order: the file is rewritten as a normal MP4 with its index up front when it is still
/// fragmented (a recording, or a recording a crash cut off); its duration is read when not known;
/// its loudness is measured on the file as it will play, and its waveform in the same decoding
/// unless the capture measured it already; a video's thumbnail is made. All of that reads media
/// and holds no lock. Then one transaction of the store writes the waveform and thumbnail, and
/// saves the file under its clip's name with its row (``StoreTransaction/save(_:as:plays:)``).
struct ClipFinisher {
    let store: LibraryStore

    /// A file in `Recordings/` to be finished into a clip.
    struct Clip {
        /// The file, under a writing name (`.partial`, `.importing`) or an orphan's name.
        var file: StoredFile
        var id: RecordingID
        var type: RecordingType
        /// Seconds, when known exactly (a recording's sample count); otherwise read from the file.
        var duration: Double?
        /// Still a fragmented MP4: rewritten with its index up front (a failure keeps it as it is,
        /// which every reader handles).
        var fragmented: Bool
        /// Samples of AAC priming a fragmented recording carries, hidden by the rewrite's edit list.
        var primingSamples: Int64 = 0
        /// Whether a video that yields no thumbnail is refused (an import) or kept without one.
        var requiresThumbnail = false
        /// The waveform, when the samples were measured as they were captured (a recording);
        /// otherwise it is measured in the decoding that measures the loudness.
        var waveform: Waveform?

        var files: ClipFiles { ClipFiles(id: id, type: type) }
    }

    /// Finishes `clip` and saves it with `metadata`, created at `createdAt`, and the `markers`
    /// made while it was recorded (those within it) in the same transaction; returns its row.
    /// Blocking: decoding and the disk; run it off the cooperative pool.
    ///
    /// Throws ``CraveyError``: a thumbnail that is required and cannot be made (nothing is saved
    /// then), or a failed save (see ``StoreTransaction/save(_:as:plays:)``). Running out of memory
    /// while rewriting is thrown as it is.
    func finish(_ clip: Clip, metadata: RecordingMetadata, createdAt: Date, markers: [ClipMarker] = []) throws -> Recording {
        try finish(clip) { duration, loudness in
            (Recording(id: clip.id, type: clip.type, title: metadata.resolvedTitle(createdAt: createdAt),
                       notes: metadata.notes, purpose: metadata.purpose, createdAt: createdAt, duration: duration,
                       filePath: clip.files.media().path, fileSize: 0, markers: ClipMarker.kept(markers, within: duration),
                       loudness: loudness), [])
        }
    }

    /// Finishes `clip` and saves it as its record says it was (its words, date, plays and
    /// loudness); the file's own facts (its size, the thumbnail) are made again.
    func finish(_ clip: Clip, restoring record: ClipRecord) throws -> Recording {
        try finish(clip) { _, loudness in
            var row = record.recording
            row.loudness = row.loudness ?? loudness
            return (row, record.plays)
        }
    }

    /// The steps: rewrite, duration, loudness and waveform, thumbnail; then `row` makes the row
    /// (and its plays) from what they found, and one transaction saves it all.
    private func finish(_ clip: Clip, row: (Double, LoudnessMeasurement?) -> (Recording, [PlayEvent])) throws -> Recording {
        // Whatever happens, the file is no longer this process's to hold once this returns.
        defer { store.release(clip.file) }
        if clip.fragmented {
            do {
                try rewriteAsNormalMP4(clip.file, of: clip.files, audioPriming: clip.primingSamples)
            } catch {
                // The fragmented file, which every reader handles, stays as it is, unless memory
                // ran out, which says nothing about the file.
                if let error = error as? FFmpegError, error == .outOfMemory { throw error }
            }
        }
        let media = store.media(clip.file)
        let duration = try clip.duration ?? MediaProbe.duration(of: media)
        // No audio stream, no measurement and no waveform; audio that does not decode is no
        // reason to refuse a clip (it gets neither either).
        let analysis = (try? AudioAnalysis.measure(media, loudness: true, waveform: clip.waveform == nil)) ?? nil
        // Every part made from the media (the waveform, a video's thumbnail): one that cannot be
        // made does not cost the clip, unless it is required (it is saved without it).
        let required: Set<ClipFiles.Part> = clip.requiresThumbnail ? [.thumbnail] : []
        let parts = try PartMaker.parts(of: media, type: clip.type,
                                        decoded: .init(duration: duration, waveform: clip.waveform ?? analysis?.waveform),
                                        requiring: required)
        var (recording, plays) = row(duration, analysis?.loudness)
        return try store.write { tx in
            // Durable before the row, as the media is.
            recording.thumbnailPath = try writeParts(parts, of: clip.files, after: .first, requiring: required, in: tx)
            return try tx.save(clip.file, as: recording, plays: plays)
        }
    }

    /// Rewrites `file`, a media file of `clip` this process owns, as a normal MP4 (index up
    /// front) by stream copy: the copy is written under its `.finishing` name, which replaces
    /// the file in one rename only when it is complete. On failure the file stays as it was and
    /// no `.finishing` file is left. A `.finishing` file already there is one a crash left
    /// mid-rewrite (the file is this process's): it goes first, or the exclusive creation would
    /// refuse every later rewrite of the file.
    ///
    /// `audioPriming` moves the audio back by the encoder delay a fragmented file cannot record,
    /// so the edit list hides it again.
    func rewriteAsNormalMP4(_ file: StoredFile, of clip: ClipFiles, audioPriming: Int64 = 0) throws {
        guard let name = StoredName(file), name.part == .media, !name.finishing else {
            preconditionFailure("\(file) is not a clip's media file to rewrite.")
        }
        let finishing = clip.media(name.state, finishing: true)
        store.remove(finishing)
        let source = try store.media(file).open()
        try store.create(finishing) { output in
            try Muxer.remux(source, into: output, format: Container(for: clip.type).formatName, audioPriming: audioPriming)
        }
        try store.replace(file, with: finishing)
    }
}
