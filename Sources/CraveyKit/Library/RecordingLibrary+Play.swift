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
        let media = store.media(try store.mediaFile(of: recording))
        var options = options
        if options.normalize {
            options.gainDB = try await analysis.loudness(of: recording, in: media)?.playbackGain(target: options.loudnessTarget) ?? 0
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
}
