import Foundation

extension LibraryAnalysis {
    private var store: LibraryStore { library.store }

    /// Makes a video's thumbnail again (a 320 px JPEG: at 10% of its length skipping dark
    /// frames, as when it was saved, or the picture at `time` seconds) and stores it in place of
    /// the old one, the file and the row together, so every other process sees the old thumbnail
    /// or the new one. Returns the row as it now is.
    ///
    /// Throws ``CraveyError``: `.invalidInput` for an audio recording or a time past the end,
    /// `.notFound` for a missing file (or a row deleted meanwhile), `.undecodableMedia` when no
    /// picture decodes. Nothing changes then.
    @discardableResult
    package func makeThumbnail(of recording: Recording, at time: Double? = nil) async throws -> Recording {
        // Decoded before the lock is taken: others wait for the store only.
        let jpeg = try await thumbnail(of: recording, at: time)
        return try store.write { tx in
            guard try tx.repository.recording(recording.id) != nil else {
                throw CraveyError(.notFound, "\"\(recording.title)\" is no longer in the library.")
            }
            let file = try tx.store(jpeg, as: .thumbnail, of: ClipFiles(recording))
            return try tx.repository.updateThumbnail(of: recording.id, to: file.path)
        }
    }

    /// Makes `recording`'s thumbnail as ``makeThumbnail(of:at:)`` does and writes it to a new
    /// file at `url` (mode 0600) instead, changing nothing in the library. Refused
    /// (`.invalidInput`): a place inside the library folder, something already at `url` unless
    /// `replacing`, and anything there that is not a regular file even then.
    package func writeThumbnail(of recording: Recording, at time: Double? = nil, to url: URL, replacing: Bool = false) async throws {
        let jpeg = try await thumbnail(of: recording, at: time)
        try library.archive.writeOutside(to: url, doing: "write the thumbnail to", replacing: replacing) { try $0.write(jpeg) }
    }

    /// The JPEG of `recording`'s video at `time`, decoded on a thread of its own.
    private func thumbnail(of recording: Recording, at time: Double?) async throws -> Data {
        guard recording.type == .video else {
            throw CraveyError(.invalidInput, "\"\(recording.title)\" is an audio recording: only a video has a thumbnail.")
        }
        let media = store.media(try store.mediaFile(of: recording))
        return try await onDedicatedThread(named: "cravey.thumbnail") { try Thumbnailer.jpeg(forVideoAt: media, at: time) }
    }

    /// `recording`'s waveform: the one stored beside it, read at once; or, for a clip saved
    /// before waveforms were kept (or whose waveform file is gone or damaged), measured now from
    /// its media (decoding its audio once: about 1 s for an hour of AAC) and stored for next
    /// time. Nil for a clip without sound (a silent video).
    ///
    /// Storing is only a cache: a library that cannot be written (read-only, or written by a
    /// newer cravey) still gets its clips' waveforms, measured each time.
    ///
    /// Throws ``CraveyError``: `.notFound` when the clip's file is missing, `.undecodableMedia`
    /// when its audio does not decode.
    package func waveform(of recording: Recording) async throws -> Waveform? {
        if let stored = storedWaveform(of: recording) { return stored }
        // Decoding and the store (which may wait for another process's step) block: on a thread
        // of their own, not the cooperative pool.
        return try await onDedicatedThread(named: "cravey.waveform") { [self] in
            guard let waveform = try measureSound(of: recording, loudness: false, waveform: true).waveform else { return nil }
            // A cache: a library that cannot be written measures it again next time.
            _ = try? keep(waveform, of: recording)
            return waveform
        }
    }

    /// Stores the waveform of a clip saved without one, only while its row is there, so a clip
    /// deleted meanwhile never gets a file back. `.notFound` when the row is gone.
    func keep(_ waveform: Waveform, of recording: Recording) throws {
        try store.write { tx in
            guard try tx.repository.recording(recording.id) != nil else {
                throw CraveyError(.notFound, "\"\(recording.title)\" is no longer in the library.")
            }
            try tx.store(waveform.audiowaveformData(), as: .waveform, of: ClipFiles(recording))
        }
    }

    /// Decodes `recording`'s audio once and measures its loudness (`loudness`), its waveform
    /// (`waveform`), or both; stores nothing. Both nil for a clip without an audio stream.
    /// Throws ``CraveyError``: `.notFound` when its file is missing, `.undecodableMedia` when its
    /// audio does not decode. Blocking.
    package func measureSound(of recording: Recording, loudness: Bool, waveform: Bool) throws
        -> (loudness: LoudnessMeasurement?, waveform: Waveform?) {
        let measured = try AudioAnalysis.measure(store.media(try store.mediaFile(of: recording)), loudness: loudness, waveform: waveform)
        return (measured?.loudness, measured?.waveform)
    }

    /// Measures `recording`'s loudness on its file (decoding its audio) and stores it in its
    /// row; returns it, or nil (storing nothing) for a clip without an audio stream. Throws
    /// ``CraveyError``: `.notFound` when its file or its row is gone, `.undecodableMedia` when its
    /// audio does not decode. Blocking.
    @discardableResult
    package func measureLoudness(of recording: Recording) throws -> LoudnessMeasurement? {
        guard let measured = try measureSound(of: recording, loudness: true, waveform: false).loudness else { return nil }
        try store.write { tx in try tx.repository.updateLoudness(of: recording.id, to: measured) }
        return measured
    }

    /// The clip's stored loudness, or, the first time a clip saved before loudness was measured
    /// plays, its measurement (about 0.1 s of decoding a minute of audio), stored for next time.
    /// Nil for a clip without sound. Storing is only a cache: a read-only library still plays
    /// its clips at one loudness, measuring them each time.
    package func loudness(of recording: Recording, in media: MediaLocation) async throws -> LoudnessMeasurement? {
        if let loudness = recording.loudness { return loudness }
        // Decoding and the write (which may wait on another process's transaction) block: on a
        // thread of their own, not the cooperative pool.
        return try await onDedicatedThread(named: "cravey.loudness") { [store] in
            let measured = try LoudnessMeter.measure(fileAt: media)
            if let measured {
                // A cache: a library that cannot be written measures again next time.
                _ = try? store.write { tx in try tx.repository.updateLoudness(of: recording.id, to: measured) }
            }
            return measured
        }
    }
}
