import Foundation

/// Finishes a file into the library: the one function a recording, an import and a repair's
/// recovery all go through, so a change to how a clip is finished is made once.
///
/// In order: the file is rewritten as a normal MP4 with its index up front when it is still
/// fragmented (a recording, or a recording a crash cut off); its duration is read when not known;
/// its loudness is measured on the file as it will play, and its waveform in the same decoding
/// unless the capture measured it already; a video gets its thumbnail; the waveform is written;
/// then the file is renamed to its final name and its row inserted, in one step under the
/// writers' lock (``FileStorageManager/save(_:as:)``).
struct ClipFinisher {
    let storage: FileStorageManager

    /// A file in `Recordings/` to be finished into a clip.
    struct Clip {
        /// The file, under a writing name (`.partial`, `.importing`) or an orphan's name.
        var file: URL
        var id: UUID
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
    }

    /// Finishes `clip` and saves it with `metadata`, created at `createdAt`; returns its row.
    /// Blocking: decoding and the disk; run it off the cooperative pool.
    ///
    /// Throws ``CraveyError``: a thumbnail that is required and cannot be made (nothing is saved
    /// then), or a failed save (see ``FileStorageManager/save(_:as:)``). Running out of memory
    /// while rewriting is thrown as it is.
    func finish(_ clip: Clip, metadata: RecordingMetadata, createdAt: Date) throws -> Recording {
        try finish(clip) { duration, thumbnail, loudness in
            (Recording(id: clip.id, type: clip.type, title: metadata.resolvedTitle(createdAt: createdAt),
                       notes: metadata.notes, purpose: metadata.purpose, createdAt: createdAt, duration: duration,
                       filePath: storage.relativePath(for: clip.id, type: clip.type), thumbnailPath: thumbnail,
                       fileSize: 0, loudness: loudness), [])
        }
    }

    /// Finishes `clip` and saves it as the clip its own copy (``FileStorageManager/storedClip(_:type:)``)
    /// says it was: its words, date, plays and loudness; the file's facts (its size, a new
    /// thumbnail) are read again.
    func finish(_ clip: Clip, restoring stored: Recording, plays: [PlayEvent]) throws -> Recording {
        try finish(clip) { _, thumbnail, loudness in
            var row = stored
            row.filePath = storage.relativePath(for: clip.id, type: clip.type)
            row.thumbnailPath = thumbnail
            row.loudness = stored.loudness ?? loudness
            return (row, plays)
        }
    }

    /// The steps: rewrite, duration, loudness and waveform, thumbnail, the waveform written;
    /// then `row` makes the row (and its plays) from what they found, which is saved.
    private func finish(_ clip: Clip, row: (Double, String?, LoudnessMeasurement?) -> (Recording, [PlayEvent])) throws -> Recording {
        // Whatever happens, the file is no longer this process's to hold once this returns.
        defer { storage.release(clip.file) }
        if clip.fragmented {
            do {
                try rewriteAsNormalMP4(clip.file, type: clip.type, audioPriming: clip.primingSamples)
            } catch {
                // The fragmented file, which every reader handles, stays as it is, unless memory
                // ran out, which says nothing about the file.
                if let error = error as? FFmpegError, error == .outOfMemory { throw error }
            }
        }
        let media = storage.media(clip.file)
        let duration = try clip.duration ?? MediaProbe.duration(of: media)
        // No audio stream, no measurement and no waveform; audio that does not decode is no
        // reason to refuse a clip (it gets neither either).
        let analysis = (try? AudioAnalysis.measure(media, loudness: true, waveform: clip.waveform == nil)) ?? nil
        let loudness = analysis?.loudness
        var thumbnail: String?
        if clip.type == .video {
            do {
                thumbnail = try storage.storeThumbnail(try Thumbnailer.jpeg(forVideoAt: media), for: clip.id)
            } catch {
                // Unless it is required, a thumbnail that cannot be made does not cost the clip:
                // it is saved without one.
                if clip.requiresThumbnail { throw error }
            }
        }
        if let waveform = clip.waveform ?? analysis?.waveform {
            // Durable before the row, like the thumbnail; one that cannot be written costs the
            // clip nothing: a repair, or the first use, makes it again.
            try? storage.storeWaveform(waveform, for: clip.id, type: clip.type)
        }
        let (recording, plays) = row(duration, thumbnail, loudness)
        return try storage.save(clip.file, as: recording, plays: plays)
    }

    /// Rewrites a file of the library as a normal MP4 (index up front) by stream copy: the copy
    /// is written to a new `.finishing` sibling, which replaces the file in one rename only when
    /// it is complete. On failure the file stays as it was and no `.finishing` file is left.
    /// The caller owns `url` (it wrote it, or no one holds it), so a `.finishing` file already
    /// there is one a crash left mid-rewrite: it goes first, or the exclusive creation would
    /// refuse every later rewrite of the file.
    ///
    /// `audioPriming` moves the audio back by the encoder delay a fragmented file cannot record,
    /// so the edit list hides it again.
    func rewriteAsNormalMP4(_ url: URL, type: RecordingType, audioPriming: Int64 = 0) throws {
        let finishing = FileStorageManager.finishingURL(for: url)
        try storage.remove(finishing)
        let source = try storage.media(url).open()
        try storage.create(finishing) { file in
            try Muxer.remux(source, into: file, format: Container(for: type).formatName, audioPriming: audioPriming)
        }
        try storage.replace(url, with: finishing)
    }
}
