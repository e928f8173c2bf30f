import Foundation

/// Plays a recording of the library and counts the play, as the app's player did: when playback
/// completes or the person stops it, one play is recorded in one transaction (an event with the
/// seconds listened and whether it completed, playCount + 1, lastPlayedAt = now). A preview
/// (`countsPlay: false`) records nothing; a playback that fails counts nothing.
public struct PlayRecordingUseCase: Sendable {
    /// How a play ended, and the recording as it is now.
    public struct Outcome: Sendable {
        public var summary: PlaybackSummary
        /// The row after the play was counted (or as it was, when it was not).
        public var recording: Recording
        /// True when the play was recorded.
        public var counted: Bool
    }

    let library: RecordingLibrary

    public init(library: RecordingLibrary) {
        self.library = library
    }

    /// Starts playing `recording`'s file (resolved inside the library folder). With `normalize`
    /// (the default) the clip is turned toward -16 LUFS with its true peak kept under -1 dBTP
    /// (``LoudnessMeasurement/playbackGain(target:ceiling:)``), replacing `options.gainDB`; a clip
    /// saved before loudness was measured is measured first, once.
    ///
    /// Throws ``CraveyError``: `.notFound` when the file is missing, `.undecodableMedia` when it
    /// does not decode, `.unavailable` without a sound server or sink; nothing is counted then.
    public func start(_ recording: Recording, options: PlaybackOptions = PlaybackOptions(),
                      normalize: Bool = true) async throws -> PlaybackManager {
        let url = try fileURL(of: recording)
        var options = options
        if normalize {
            options.gainDB = try await loudness(of: recording, fileAt: url)?.playbackGain() ?? 0
        }
        let manager = PlaybackManager(fileAt: url, duration: recording.duration, options: options)
        try await manager.start()
        return manager
    }

    /// The clip's stored loudness, or, the first time a clip saved before loudness was measured
    /// plays, its measurement (about 0.1 s of decoding a minute of audio), stored for next time.
    /// Nil for a clip without sound. Storing is only a cache: a read-only library still plays
    /// its clips at one loudness, measuring them each time.
    private func loudness(of recording: Recording, fileAt url: URL) async throws -> LoudnessMeasurement? {
        if let loudness = recording.loudness { return loudness }
        // Decoding and the write (which may wait on another process's transaction) block: on a
        // thread of their own, not the cooperative pool.
        return try await onDedicatedThread(named: "cravey.loudness") { [library] in
            let measured = try LoudnessMeter.measure(fileAt: url)
            if let measured { _ = try? library.repository.updateLoudness(of: recording.id, to: measured) }
            return measured
        }
    }

    /// Waits for `manager` to end and counts the play of `recording` unless `countsPlay` is false.
    public func finish(_ manager: PlaybackManager, of recording: Recording, countsPlay: Bool = true) async throws -> Outcome {
        let summary = try await manager.result()
        // The count is a write transaction, which may wait on other processes: off the pool.
        return try await onDedicatedThread(named: "cravey.count") { [self] in
            try count(recording, summary: summary, countsPlay: countsPlay)
        }
    }

    /// Counts a play that happened elsewhere (the desktop's player, handed the file): listened
    /// for an unknown time, so 0 seconds and not completed.
    public func countHandedOff(_ recording: Recording, countsPlay: Bool = true) throws -> Outcome {
        try count(recording, summary: PlaybackSummary(secondsListened: 0, completed: false, position: 0), countsPlay: countsPlay)
    }

    /// The file of `recording`, resolved inside the library folder, to hand to another player.
    public func fileURL(of recording: Recording) throws -> URL {
        try library.storage.mediaURL(of: recording)
    }

    private func count(_ recording: Recording, summary: PlaybackSummary, countsPlay: Bool) throws -> Outcome {
        guard countsPlay else { return Outcome(summary: summary, recording: recording, counted: false) }
        let updated = try library.repository.recordPlay(of: recording.id, secondsListened: summary.secondsListened,
                                                        completed: summary.completed)
        return Outcome(summary: summary, recording: updated, counted: true)
    }
}
