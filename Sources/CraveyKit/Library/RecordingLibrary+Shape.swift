import Foundation

extension RecordingLibrary {
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
        try await shaping.trim(recording, from: start, to: end)
    }

    /// Refuses, as ``trim(_:from:to:)`` does, a cut of `recording` to `start`-`end` seconds: a
    /// span outside the clip (an end past it included), shorter than 0.1 s or the whole clip
    /// (`.invalidInput`). What a dry run checks without cutting.
    public func checkTrim(of recording: Recording, from start: Double, to end: Double) throws {
        try shaping.checkTrim(of: recording, from: start, to: end)
    }

    /// Writes `recording` for someone else to a new file at `url` (mode 0600), in the format its
    /// extension names (`.m4a`, `.opus`, `.mp3`, `.ogg`, `.wav`; a video also `.mp4`, its
    /// pictures copied), at the level cravey plays it at (its loudness turned toward -16 LUFS),
    /// with no metadata but `title` when given: no creation time, encoder, device or cravey id.
    /// `progress` gets the part done (0...1) as it goes. Refused (`.invalidInput`) as
    /// an export is refused: a place inside the library, something already at
    /// `url` unless `replacing`, anything there that is not a regular file; and an extension of
    /// no format, `.mp4` for a clip without pictures, a clip without sound, a title that is not
    /// one. A failure leaves nothing at `url`. With `chapters`, its markers become the file's
    /// chapters (titled by their labels: words, so only when asked), in `.m4a`, `.mp3` and a
    /// video's `.mp4`; refused for `.opus` and `.ogg` (FFmpeg 5.1 writes an Ogg chapter a second
    /// late), `.wav` (no chapters) and a clip without markers.
    public func share(_ recording: Recording, to url: URL, title: String? = nil, chapters: Bool = false, replacing: Bool = false,
                      progress: @escaping @Sendable (Double) -> Void = { _ in }) async throws {
        try await shaping.share(recording, to: url, title: title, chapters: chapters, replacing: replacing, progress: progress)
    }
}
