import Foundation
import SystemPackage

/// A clip's sound with its noise taken out, made beside the clip and not kept yet: compare the
/// two (``RecordingLibrary/play(_:options:)``), then ``RecordingLibrary/keep(_:)`` it, which
/// replaces the clip as a trim does, or ``RecordingLibrary/discard(_:)`` it, which changes nothing.
/// One dropped unkept is discarded.
package final class NoiseCleanup: Sendable {
    /// The clip as it was when cleaned.
    package let recording: Recording
    /// The stretch of the clip its noise was learnt from (its quietest), in seconds.
    package let noiseSample: Range<Double>
    /// The noise's level over that stretch (RMS, dBFS) before and after.
    package let noiseFloorBefore: Double
    package let noiseFloorAfter: Double
    /// How much the clip's loudness (its speech) changed, in LU; nil when either is not measured
    /// (a silent clip).
    package let speechLevelChange: Double?
    /// The filter chain that ran (libavfilter's syntax).
    package let filters: String
    /// The cleaned clip's loudness: what it plays at.
    package var loudness: LoudnessMeasurement? { measured.loudness }
    /// Seconds of the cleaned sound.
    package var duration: Double { measured.duration }

    let replacement: ClipFinisher.Replacement
    let measured: ClipFinisher.Measured
    private let store: LibraryStore
    private let settled = Locked(false)

    init(replacement: ClipFinisher.Replacement, measured: ClipFinisher.Measured, noiseSample: Range<Double>,
         result: NoiseCleaner.Result, store: LibraryStore) {
        recording = replacement.recording
        self.replacement = replacement
        self.measured = measured
        self.noiseSample = noiseSample
        noiseFloorBefore = result.noiseFloorBefore
        noiseFloorAfter = result.noiseFloorAfter
        filters = result.filters
        self.store = store
        if let before = replacement.recording.loudness?.integrated, let after = measured.loudness?.integrated,
           before.isFinite, after.isFinite {
            speechLevelChange = after - before
        } else {
            speechLevelChange = nil
        }
    }

    deinit { discard() }

    /// Marks the clean-up settled; false when it was already (kept or discarded).
    func settle() -> Bool {
        settled.withLock { settled in
            defer { settled = true }
            return !settled
        }
    }

    /// Removes the cleaned file, once.
    func discard() {
        guard settle() else { return }
        store.remove(replacement.file)
    }
}

extension RecordingLibrary {
    // MARK: - Trim

    /// Where `recording`'s sound starts and ends, from its stored waveform alone (no decoding;
    /// one made first for a clip saved without it): from 150 ms before its first sound to 150 ms
    /// after its last, a sound being peaks 12 dB above the clip's own noise floor (see
    /// ``TrimProposal``). Nil for a clip without sound, or none that reaches the threshold.
    package func proposedTrim(of recording: Recording) async throws -> TrimProposal? {
        try await waveform(of: recording)?.proposedTrim(duration: recording.duration)
    }

    /// Cuts `recording` to the part from `start` to `end` seconds, exactly and without
    /// re-encoding (``Muxer/trim(_:into:format:from:to:)``: the MP4 edit list), and replaces it
    /// in one durable step: its id, title, notes, purpose, creation date and plays stay; its
    /// duration, size, loudness, waveform and thumbnail are those of the part kept, and its
    /// markers move with the sound (those in the part cut go) in the same row write. The cut
    /// parts are deleted with the old file and cannot be recovered. Returns the row as it now is.
    ///
    /// The cut is made only while the clip is still as `recording` is and its media was when the
    /// cut began.
    ///
    /// Throws ``CraveyError``: `.invalidInput` for a span outside the clip, shorter than 0.1 s or
    /// the whole clip; `.notFound` when the clip or its file is gone; `.busy` when another
    /// process changed it meanwhile; `.undecodableMedia` for media that does not read;
    /// `.cannotWrite` for a full disk. Nothing changes then.
    public func trim(_ recording: Recording, from start: Double, to end: Double) async throws -> Recording {
        try await trim(recording, from: start, to: end, asked: nil)
    }

    /// ``trim(_:from:to:)`` after a question: made only while the clip is still as `asked` shows
    /// it (the version taken when the question "Cut it?" was asked, ``version(of:)``).
    package func trim(_ recording: Recording, from start: Double, to end: Double, asked: ClipVersion?) async throws -> Recording {
        try checkTrim(of: recording, from: start, to: end)
        return try await onDedicatedThread(named: "cravey.trim") { [self] in
            try shape(recording, asked: asked, kept: start...end) { input, file in
                try Muxer.trim(input, into: file, format: Container(for: recording.type).formatName, from: start, to: end)
            }
        }
    }

    /// Refuses, as ``trim(_:from:to:asked:)`` does, a cut of `recording` to `start`-`end`
    /// seconds: a span outside the clip (an end past it included), shorter than 0.1 s or the
    /// whole clip (`.invalidInput`). What a dry run checks without cutting.
    public func checkTrim(of recording: Recording, from start: Double, to end: Double) throws {
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
    /// `.cannotWrite` as ``trim(_:from:to:asked:)``. With `asked` (``version(of:)``), the
    /// clean-up is made, and later kept, only while the clip is still as it shows it (`.busy`).
    package func cleanNoise(of recording: Recording, asked: ClipVersion? = nil) async throws -> NoiseCleanup {
        guard let waveform = try await waveform(of: recording) else {
            throw CraveyError(.invalidInput, "\"\(recording.title)\" has no sound to clean.")
        }
        guard let stretch = waveform.quietestStretch(seconds: min(0.5, recording.duration / 4)) else {
            throw CraveyError(.invalidInput, "\"\(recording.title)\" has no stretch to learn its noise from: its quiet parts are digital silence, with no noise to take out.")
        }
        var recording = recording
        if recording.loudness == nil {
            recording.loudness = try await onDedicatedThread(named: "cravey.loudness") { [self, recording] in
                try measureSound(of: recording, loudness: true, waveform: false).loudness
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

    /// Writes `recording` for someone else to a new file at `url` (mode 0600), in the format its
    /// extension names (`.m4a`, `.opus`, `.mp3`, `.ogg`, `.wav`; a video also `.mp4`, its
    /// pictures copied), at the level cravey plays it at (its loudness turned toward -16 LUFS),
    /// with no metadata but `title` when given: no creation time, encoder, device or cravey id.
    /// `progress` gets the part done (0...1) as it goes. Refused (`.invalidInput`) as
    /// ``export(_:raw:to:replacing:)`` refuses: a place inside the library, something already at
    /// `url` unless `replacing`, anything there that is not a regular file; and an extension of
    /// no format, `.mp4` for a clip without pictures, a clip without sound, a title that is not
    /// one. A failure leaves nothing at `url`. With `chapters`, its markers become the file's
    /// chapters (titled by their labels: words, so only when asked), in `.m4a`, `.mp3` and a
    /// video's `.mp4`; refused for `.opus` and `.ogg` (FFmpeg 5.1 writes an Ogg chapter a second
    /// late), `.wav` (no chapters) and a clip without markers.
    public func share(_ recording: Recording, to url: URL, title: String? = nil, chapters: Bool = false, replacing: Bool = false,
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
                try measureSound(of: recording, loudness: true, waveform: false).loudness
            }
        }
        let gain = recording.loudness?.playbackGain() ?? 0
        try await onDedicatedThread(named: "cravey.share") { [self, recording] in
            let (input, _) = try openWithIdentity(recording)
            guard input.info.audioStream != nil else {
                throw CraveyError(.invalidInput, "\"\(recording.title)\" has no sound to share.")
            }
            do {
                try writeOutside(to: url, doing: "share the clip to", replacing: replacing) { file in
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
        try expectSame(recording.id, asked)
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
            throw CraveyError.writing(error, to: url.appendingPathComponent(ClipFiles(recording).media().path))
        }
    }

    /// Opens `recording`'s media for reading, through one descriptor, and tells which file it is.
    private func openWithIdentity(_ recording: Recording) throws -> (Demuxer, MediaIdentity) {
        let media = try mediaFile(of: recording)
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
    static func seconds(_ value: Double) -> String {
        String(format: "%.3f s", value)
    }
}
