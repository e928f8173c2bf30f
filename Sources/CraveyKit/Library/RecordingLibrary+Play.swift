import Foundation

extension RecordingLibrary {
    /// Starts playing `recording` through the sound server and returns the running
    /// ``PlaybackManager``: pause, seek, stop, its events, and ``PlaybackManager/result()``.
    ///
    /// When it ends (played to the end, or stopped) one play is counted, in one transaction, as
    /// the app's player did: an event with the seconds listened and whether it completed,
    /// `playCount` + 1 and `lastPlayedAt`; a preview (``PlaybackOptions/countsPlay`` false)
    /// counts nothing, nor does a playback that fails. With ``PlaybackOptions/normalize`` (the
    /// default) the clip plays toward -16 LUFS; a clip saved before its loudness was measured is
    /// measured first, once, and the measurement stored.
    ///
    /// Throws ``CraveyError``: `.notFound` when the file is missing, `.undecodableMedia` when it
    /// does not decode, `.unavailable` without a sound server or sink; nothing is counted then.
    public func play(_ recording: Recording, options: PlaybackOptions = PlaybackOptions()) async throws -> PlaybackManager {
        let media = store.media(try mediaFile(of: recording))
        var options = options
        if options.normalize {
            options.gainDB = try await loudness(of: recording, in: media)?.playbackGain(target: options.loudnessTarget) ?? 0
        }
        // Only a video opens a window (and loads SDL2).
        options.showsVideo = options.showsVideo && recording.type == .video
        let counts = options.countsPlay
        // A title stored before control characters were refused must not reach the window's title bar.
        let title = options.showsTitle
            ? String(String.UnicodeScalarView(recording.title.unicodeScalars.filter { $0.properties.generalCategory != .control })) : "cravey"
        let manager = PlaybackManager(fileAt: media, duration: recording.duration, title: title,
                                      options: options) { [self] summary in
            var summary = summary
            summary.recording = recording
            if counts {
                summary.recording = try countPlay(of: recording, secondsListened: summary.secondsListened,
                                                  completed: summary.completed)
                summary.counted = true
            }
            return summary
        }
        try await manager.start()
        return manager
    }

    /// The clip's stored loudness, or, the first time a clip saved before loudness was measured
    /// plays, its measurement (about 0.1 s of decoding a minute of audio), stored for next time.
    /// Nil for a clip without sound. Storing is only a cache: a read-only library still plays
    /// its clips at one loudness, measuring them each time.
    private func loudness(of recording: Recording, in media: MediaLocation) async throws -> LoudnessMeasurement? {
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
