import Foundation

/// How loud a clip is, as EBU R128 measures it (ITU-R BS.1770-4): its integrated loudness and
/// its true peak. Playback turns it toward one target with ``playbackGain(target:ceiling:)``.
package struct LoudnessMeasurement: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Integrated loudness in LUFS; minus infinity when no 400 ms block of the clip reaches the
    /// absolute gate (-70 LUFS): the clip is silent as far as loudness goes.
    package var integrated: Double
    /// The highest true peak (4x oversampled) of any channel, in dBTP; minus infinity for
    /// digital silence.
    package var truePeak: Double

    /// The level playback turns clips toward: -16 LUFS, the usual level for spoken word.
    package static let playbackTarget = -16.0
    /// The most a quiet clip is turned up: 30 dB (a clip that needs more is mostly its noise).
    package static let largestBoost = 30.0
    /// The highest true peak playback lets a gain produce: -1 dBTP.
    package static let peakCeiling = -1.0

    package init(integrated: Double, truePeak: Double) {
        self.integrated = integrated
        self.truePeak = truePeak
    }

    /// Nothing in the clip reached the absolute gate (-70 LUFS).
    package var isSilent: Bool { !integrated.isFinite }

    /// The gain, in dB, that brings the clip to `target` LUFS without its true peak passing
    /// `ceiling` dBTP.
    ///
    /// - A clip louder than the target is turned down to it (turning down only lowers the peak).
    /// - A quieter clip is turned up toward the target, but only as far as its peak allows: the
    ///   gain is at most `ceiling - truePeak`, and never below 0 for a clip quieter than the
    ///   target (a quiet clip whose peak already passes the ceiling stays as it is, it is not
    ///   turned further down), and never by more than ``largestBoost``.
    /// - A silent clip gets 0: there is nothing to bring to a level.
    package func playbackGain(target: Double = playbackTarget, ceiling: Double = peakCeiling) -> Double {
        // A measurement no clip gives (a damaged row) is never applied: a gain of 100 dB would
        // play it as full-scale noise.
        guard !isSilent, isPlausible else { return 0 }
        let towardTarget = target - integrated
        guard towardTarget > 0 else { return towardTarget }
        return min(towardTarget, max(ceiling - truePeak, 0), Self.largestBoost)
    }

    /// `-18.2 LUFS, true peak -1.3 dBTP`, or that the clip is silent.
    package var description: String {
        guard !isSilent else {
            return "silent (nothing reaches -70 LUFS), true peak " + (truePeak.isFinite ? String(format: "%.1f dBTP", truePeak) : "none")
        }
        return String(format: "%.1f LUFS, true peak %.1f dBTP", integrated, truePeak)
    }
}
