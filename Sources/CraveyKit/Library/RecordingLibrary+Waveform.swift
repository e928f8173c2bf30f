import Foundation

extension RecordingLibrary {
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
    public func waveform(of recording: Recording) async throws -> Waveform? {
        if let stored = storage.storedWaveform(of: recording.id, type: recording.type) { return stored }
        // Decoding and the store (which may wait for another process's step) block: on a thread
        // of their own, not the cooperative pool.
        return try await onDedicatedThread(named: "cravey.waveform") { [self] in
            let measured = try measureSound(of: recording, loudness: false, waveform: true)
            if let waveform = measured.waveform { try? storage.keepWaveform(waveform, of: recording) }
            return measured.waveform
        }
    }

    /// Decodes `recording`'s audio once and measures its loudness (`loudness`), its waveform
    /// (`waveform`), or both; stores nothing. Both nil for a clip without an audio stream.
    /// Throws ``CraveyError``: `.notFound` when its file is missing, `.undecodableMedia` when its
    /// audio does not decode. Blocking.
    package func measureSound(of recording: Recording, loudness: Bool, waveform: Bool) throws
        -> (loudness: LoudnessMeasurement?, waveform: Waveform?) {
        let measured = try AudioAnalysis.measure(storage.media(try storage.mediaURL(of: recording)), loudness: loudness, waveform: waveform)
        return (measured?.loudness, measured?.waveform)
    }
}
