import Foundation
import SystemPackage

/// Changing a clip's sound, and writing it for someone else: a trim (and the one `trim --auto`
/// proposes), a noise clean-up heard before it is kept, a share. Every change makes a new
/// version of the clip's media beside it and replaces the clip with it in one durable step
/// (``ClipFinisher``), only while the clip is still as it was asked about. A capability reached
/// from the door (``RecordingLibrary/shaping``), which keeps the public `trim`, `checkTrim` and
/// `share` an embedder uses.
package struct LibraryShaping: Sendable {
    package let library: RecordingLibrary
    private var store: LibraryStore { library.store }

    // MARK: - Trim

    /// Where `recording`'s sound starts and ends, from its stored waveform alone (no decoding;
    /// one made first for a clip saved without it): from 150 ms before its first sound to 150 ms
    /// after its last, a sound being peaks 12 dB above the clip's own noise floor (see
    /// ``TrimProposal``). Nil for a clip without sound, or none that reaches the threshold.
    package func proposedTrim(of recording: Recording) async throws -> TrimProposal? {
        try await library.analysis.waveform(of: recording)?.proposedTrim(duration: recording.duration)
    }

    /// ``RecordingLibrary/trim(_:from:to:)``, the cut and its refusals; with `asked` (the
    /// version taken when the question "Cut it?" was asked, ``RecordingLibrary/version(of:)``),
    /// made only while the clip is still as it shows it (`.busy` otherwise, nothing changed).
    package func trim(_ recording: Recording, from start: Double, to end: Double, asked: ClipVersion? = nil) async throws -> Recording {
        try checkTrim(of: recording, from: start, to: end)
        return try await onDedicatedThread(named: "cravey.trim") { [self] in
            try shape(recording, asked: asked, kept: start...end) { input, file in
                try Muxer.trim(input, into: file, format: Container(for: recording.type).formatName, from: start, to: end)
            }
        }
    }

    /// ``RecordingLibrary/checkTrim(of:from:to:)``: what ``trim(_:from:to:asked:)`` refuses.
    package func checkTrim(of recording: Recording, from start: Double, to end: Double) throws {
        guard start >= 0, start.isFinite, end.isFinite, start < recording.duration else {
            throw CraveyError(.invalidInput, "Cannot cut \"\(recording.title)\" from \(Self.seconds(start)): it is \(Self.seconds(recording.duration)) long.")
        }
        guard end <= recording.duration + 0.0005 else {
            throw CraveyError(.invalidInput, "Cannot cut \"\(recording.title)\" up to \(Self.seconds(end)): it is \(Self.seconds(recording.duration)) long.")
        }
        guard end - start >= 0.1 else {
            throw CraveyError(.invalidInput, "Cannot cut \"\(recording.title)\" to \(Self.seconds(start))-\(Self.seconds(end)): what is kept must be at least 0.1 s.")
        }
        guard start > 0.0005 || end < recording.duration - 0.0005 else {
            throw CraveyError(.invalidInput, "Nothing to cut: \(Self.seconds(start))-\(Self.seconds(end)) is the whole of \"\(recording.title)\".")
        }
    }

    // MARK: - Noise

    /// Takes the steady noise out of `recording`'s sound (``NoiseCleaner``): learnt over its
    /// quietest half second (found in its waveform), removed with FFmpeg's `afftdn` after a
    /// high-pass under the voice. The result waits beside the clip, changing nothing, until it is
    /// kept or discarded (``NoiseCleanup``). Decoding and encoding: about a second of CPU for a
    /// minute of sound.
    ///
    /// Throws ``CraveyError``: `.invalidInput` for a clip without sound or without a stretch to
    /// learn its noise from (its quiet parts digital silence, or its quietest stretch within 10 dB
    /// of its loudness: speech, not noise); `.notFound`, `.undecodableMedia`,
    /// `.cannotWrite` as ``trim(_:from:to:asked:)``. With `asked` (``RecordingLibrary/version(of:)``), the
    /// clean-up is made, and later kept, only while the clip is still as it shows it (`.busy`).
    package func cleanNoise(of recording: Recording, asked: ClipVersion? = nil) async throws -> NoiseCleanup {
        guard let waveform = try await library.analysis.waveform(of: recording) else {
            throw CraveyError(.invalidInput, "\"\(recording.title)\" has no sound to clean.")
        }
        guard let stretch = waveform.quietestStretch(seconds: min(0.5, recording.duration / 4)) else {
            throw CraveyError(.invalidInput, "\"\(recording.title)\" has no stretch to learn its noise from: its quiet parts are digital silence, with no noise to take out.")
        }
        var recording = recording
        if recording.loudness == nil {
            recording.loudness = try await onDedicatedThread(named: "cravey.loudness") { [self, recording] in
                try library.analysis.measureSound(of: recording, loudness: true, waveform: false).loudness
            }
        }
        let speech = recording.loudness?.integrated
        return try await onDedicatedThread(named: "cravey.clean") { [self, recording] in
            var result: NoiseCleaner.Result?
            let (replacement, measured) = try make(recording, asked: asked) { input, file in
                // The noise's level over the stretch, from a reader of its own (the other reads from the start).
                let floor = try NoiseCleaner.level(of: try openWithIdentity(recording).0, over: stretch)
                // Its quietest stretch as loud as its voice: that is the voice, not a noise under it.
                if let speech, floor > speech - NoiseCleaner.leastSeparation {
                    throw CraveyError(.invalidInput, String(format: "\"%@\" has no stretch of noise alone to learn from: its quietest half second (%@-%@) is at %.1f dBFS, within %.0f dB of its speech. Nothing was changed.",
                                                            recording.title, Self.seconds(stretch.lowerBound), Self.seconds(stretch.upperBound),
                                                            floor, NoiseCleaner.leastSeparation))
                }
                result = try NoiseCleaner.clean(input, duration: recording.duration, stretch: stretch, noiseFloor: floor, speechLevel: speech,
                                                into: file, format: Container(for: recording.type).formatName)
            }
            guard let result else { throw CraveyError(.other, "The clean-up of \"\(recording.title)\" measured nothing.") }
            return NoiseCleanup(replacement: replacement, measured: measured, noiseSample: stretch, result: result, store: store)
        }
    }

    /// Keeps a clean-up: the clip is replaced by its cleaned version in one durable step, as
    /// ``trim(_:from:to:asked:)`` replaces it. Returns the row as it now is. Throws `.invalidInput` for
    /// one already kept or discarded, and as ``trim(_:from:to:asked:)`` otherwise (nothing changes then).
    package func keep(_ cleanup: NoiseCleanup) async throws -> Recording {
        guard cleanup.settle() else {
            throw CraveyError(.invalidInput, "This clean-up of \"\(cleanup.recording.title)\" was already kept or discarded.")
        }
        return try await onDedicatedThread(named: "cravey.clean") { [self] in
            try ClipFinisher(store: store).replace(cleanup.replacement, with: cleanup.measured)
        }
    }

    /// Discards a clean-up: its file goes, the clip stays as it was.
    package func discard(_ cleanup: NoiseCleanup) {
        cleanup.discard()
    }

    /// Plays a clean-up's sound, never counted, at the level cravey plays the clip at (its own
    /// loudness turned toward -16 LUFS, as the clip's is: the two compare at one level).
    package func play(_ cleanup: NoiseCleanup, options: PlaybackOptions = PlaybackOptions()) async throws -> PlaybackManager {
        var options = options
        options.countsPlay = false
        if options.normalize { options.gainDB = cleanup.loudness?.playbackGain() ?? 0 }
        options.showsVideo = options.showsVideo && cleanup.recording.type == .video
        let recording = cleanup.recording
        let manager = PlaybackManager(fileAt: store.media(cleanup.replacement.file), duration: cleanup.duration,
                                      title: "\(recording.title) (cleaned)", options: options) { summary in
            var summary = summary
            summary.recording = recording
            return summary
        }
        try await manager.start()
        return manager
    }

    // MARK: - Share

    /// ``RecordingLibrary/share(_:to:title:chapters:replacing:progress:)``.
    package func share(_ recording: Recording, to url: URL, title: String? = nil, chapters: Bool = false, replacing: Bool = false,
                      progress: @escaping @Sendable (Double) -> Void = { _ in }) async throws {
        guard let format = ClipRenderer.Format(of: url) else {
            throw CraveyError(.invalidInput, "Cannot share to \(url.path): its extension names no format cravey writes. End it in .m4a, .opus, .mp3, .ogg or .wav (a video also .mp4).")
        }
        if format == .mp4, recording.type != .video {
            throw CraveyError(.invalidInput, "Cannot share \"\(recording.title)\" as .mp4: it has no pictures. End the file in .m4a for the same sound.")
        }
        if let title { _ = try RecordingMetadata(title: title) }
        if chapters, ![.m4a, .mp3, .mp4].contains(format) {
            throw CraveyError(.invalidInput, "Cannot share \"\(recording.title)\" with chapters as .\(format.rawValue): chapters are written in .m4a and .mp3 (a video also .mp4). End the file in one of those, or share without --chapters.")
        }
        if chapters, recording.markers.isEmpty {
            throw CraveyError(.invalidInput, "\"\(recording.title)\" has no markers to share as chapters. Add one with `cravey markers ID --add TIME`, or share without --chapters.")
        }
        var recording = recording
        if recording.loudness == nil {
            recording.loudness = try await onDedicatedThread(named: "cravey.loudness") { [self, recording] in
                try library.analysis.measureSound(of: recording, loudness: true, waveform: false).loudness
            }
        }
        let gain = recording.loudness?.playbackGain() ?? 0
        try await onDedicatedThread(named: "cravey.share") { [self, recording] in
            let (input, _) = try openWithIdentity(recording)
            guard input.info.audioStream != nil else {
                throw CraveyError(.invalidInput, "\"\(recording.title)\" has no sound to share.")
            }
            do {
                try library.archive.writeOutside(to: url, doing: "share the clip to", replacing: replacing) { file in
                    try ClipRenderer.render(input, duration: recording.duration, gain: gain, format: format, title: title,
                                            chapters: chapters ? recording.markers : [], into: file, progress: progress)
                }
            } catch let error as FFmpegError {
                throw CraveyError.writing(error, to: url)
            }
        }
    }

    // MARK: - The one way a clip's media is remade

    /// Makes a new version of `recording`'s media with `body` (which writes it into the file it
    /// is given, reading the media from its start) and replaces the clip with it
    /// (``ClipFinisher/replace(_:with:)``); `kept`: the stretch of the old media it is (a trim's),
    /// which its markers and its transcript's words are moved to (nil: the markers keep their
    /// times, the transcript goes). Blocking.
    private func shape(_ recording: Recording, asked: ClipVersion?, kept: ClosedRange<Double>?,
                       _ body: (Demuxer, MediaFile) throws -> Void) throws -> Recording {
        let (made, measured) = try make(recording, asked: asked, body)
        var replacement = made
        replacement.kept = kept
        return try ClipFinisher(store: store).replace(replacement, with: measured)
    }

    /// Makes a new version of `recording`'s media with `body` under the clip's `.importing`
    /// name (held by this process; one a crash left is removed first, one another process holds
    /// refused), and measures it. A failure leaves nothing. The replacement keeps the version
    /// it must still find at its commit: `asked`, else `recording` with the media read; a media
    /// file already other than `asked`'s is refused (`.busy`) before anything is made.
    private func make(_ recording: Recording, asked: ClipVersion?, _ body: (Demuxer, MediaFile) throws -> Void)
        throws -> (ClipFinisher.Replacement, ClipFinisher.Measured) {
        try asked?.checkIsAbout(recording.id)
        let (input, identity) = try openWithIdentity(recording)
        let source = asked ?? ClipVersion(recording: recording, media: identity)
        guard source.media == identity else {
            throw CraveyError(.busy, "\"\(recording.title)\" was changed by another cravey meanwhile; nothing was changed. Look at it again, then try again.")
        }
        let file = ClipFiles(recording).media(.importing)
        let media: MediaFile
        do {
            media = try store.create(file)
        } catch Errno.fileExists {
            // Another process's change of this clip, or a crash's leftover, which goes.
            guard store.claim(file) else {
                throw CraveyError(.busy, "Another cravey is changing \"\(recording.title)\" right now; nothing was changed. Try again once it is done.")
            }
            store.remove(file)
            media = try store.create(file)
        }
        do {
            do {
                try body(input, media)
                try media.close()
            } catch {
                store.discard(media)
                throw error
            }
            let measured = try ClipFinisher(store: store).measure(file, type: recording.type)
            return (ClipFinisher.Replacement(recording: recording, file: file, source: source), measured)
        } catch {
            store.remove(file)
            if error is CraveyError { throw error }
            throw CraveyError.writing(error, to: library.url.appendingPathComponent(ClipFiles(recording).media().path))
        }
    }

    /// Opens `recording`'s media for reading, through one descriptor, and tells which file it is.
    private func openWithIdentity(_ recording: Recording) throws -> (Demuxer, MediaIdentity) {
        let media = try store.mediaFile(of: recording)
        let url = store.files!.url(of: media)
        let descriptor = try store.open(media)
        defer { try? descriptor.close() }
        guard let identity = MediaIdentity(of: descriptor) else {
            throw CraveyError(.other, "Cannot read \(url.path): \(String(cString: strerror(errno))).")
        }
        do {
            return (try Demuxer(reading: descriptor, name: url.lastPathComponent), identity)
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot read \(url.path) as media (\(error.message)). The file is damaged.",
                              advice: .checkLibrary, underlying: error)
        }
    }

    /// `12.345 s`, for messages.
    private static func seconds(_ value: Double) -> String {
        String(format: "%.3f s", value)
    }
}
