import CraveyKit

/// What a play was asked for on the command line (`play` and `quickplay N`'s options, which
/// `cravey-media`'s commands parse), as a plain value the ``Player`` takes.
package struct PlayerFlags: Sendable, Equatable {
    /// Where to start; nil from the start.
    package var from: ClipTime?
    /// A preview: no play is counted.
    package var noCount = false
    /// The clip at its own level, not turned toward the settings' loudness.
    package var noNormalize = false
    /// The PulseAudio sink to play to; nil for the default.
    package var device: String?
    /// A video's sound only, without its window.
    package var noVideo = false
    /// How many times as fast, from 0.5 to 2.
    package var speed = 1.0
    /// Whether quiet stretches are skipped from the start (z turns it on and off).
    package var skipSilence = false

    package init(from: ClipTime? = nil, noCount: Bool = false, noNormalize: Bool = false, device: String? = nil,
                 noVideo: Bool = false, speed: Double = 1, skipSilence: Bool = false) {
        (self.from, self.noCount, self.noNormalize, self.device) = (from, noCount, noNormalize, device)
        (self.noVideo, self.speed, self.skipSilence) = (noVideo, speed, skipSilence)
    }
}
