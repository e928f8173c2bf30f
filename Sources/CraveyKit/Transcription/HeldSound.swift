import Foundation

/// A clip's sound as `record` captured it or `import` decoded it, before it was encoded: 16 kHz
/// mono floats, as the transcriber reads them (``SpeechAudio``), held in memory so that the new
/// clip's words are heard from it rather than from its AAC copy (which costs Whisper whole words:
/// "Remember the telescope" heard as "Remember to tell us co-op" from the copy alone).
///
/// Filled on the thread that encodes (``append(_:)``), closed once the clip's media is whole
/// (``finish()``), read by ``LibraryTranscripts/transcribe(_:with:language:from:progress:)``.
/// Up to ``longest`` seconds (3.8 MB a minute); a longer clip's sound is let go as it grows past
/// that, and its words are heard from its media, as a clip heard later always is.
package final class HeldSound: Sendable {
    /// The longest sound held: 10 minutes, 38 MB.
    package static let longest = 600.0

    private let state = Locked<(samples: [Float], dropped: Bool, finished: Bool)>(([], false, false))

    package init() {}

    /// Adds `samples` (16 kHz mono) after those held; lets all of them go once they would make
    /// more than ``longest`` seconds.
    package func append(_ samples: [Float]) {
        state.withLock { state in
            guard !state.dropped, !state.finished else { return }
            if Double(state.samples.count + samples.count) > Self.longest * Double(SpeechAudio.sampleRate) {
                (state.samples, state.dropped) = ([], true)
            } else {
                state.samples += samples
            }
        }
    }

    /// Lets the sound go (a stretch of it could not be converted): the words are heard from the media.
    package func drop() {
        state.withLock { $0 = ([], true, $0.finished) }
    }

    /// Says that the sound is whole: the clip's media holds exactly it. Nothing is added after.
    package func finish() {
        state.withLock { $0.finished = true }
    }

    /// The sound, once whole (``finish()``) and no longer than ``longest``; nil otherwise.
    package var samples: [Float]? {
        state.withLock { $0.finished && !$0.dropped ? $0.samples : nil }
    }
}
