import Foundation

/// A level reading of the input: RMS and peak in dBFS, and the recording's elapsed time.
/// Public because an embedder draws a meter from it: ``RecordingEvent/level(_:)`` carries one for
/// each block of sound recorded.
public struct AudioLevel: Sendable, Equatable, Codable {
    /// Root mean square level in dBFS (0 is full scale; silence reads ``AudioLevel/floor``).
    public var rms: Double
    /// Peak level in dBFS.
    public var peak: Double
    /// Seconds of audio captured so far, from the sample count.
    public var elapsed: Double

    /// The lowest level reported; digital silence reads this instead of minus infinity.
    public static let floor = -120.0

    /// Measures a block of signed 16-bit samples.
    package static func measure<C: Collection<Int16>>(_ samples: C, elapsed: Double) -> AudioLevel {
        var sumOfSquares = 0.0
        var peak: Int32 = 0
        for sample in samples {
            let value = Double(sample)
            sumOfSquares += value * value
            peak = max(peak, abs(Int32(sample)))
        }
        let count = Double(max(samples.count, 1))
        return AudioLevel(rms: decibels(sqrt(sumOfSquares / count) / 32768),
                          peak: decibels(Double(peak) / 32768),
                          elapsed: elapsed)
    }

    /// Full-scale ratio to dBFS, clamped at ``floor``.
    package static func decibels(_ ratio: Double) -> Double {
        ratio > 0 ? max(20 * log10(ratio), floor) : floor
    }
}

/// Decides, once, whether the first seconds of a recording were so quiet that the microphone is
/// probably muted or the wrong source.
struct SilenceDetector {
    /// Seconds of input to judge.
    let window: Double
    /// Peak level, in dBFS, below which the input counts as silent.
    let threshold: Double
    private var loudest = AudioLevel.floor
    private var decided = false

    init(window: Double = 2, threshold: Double = -60) {
        self.window = window
        self.threshold = threshold
    }

    /// Feeds a reading; returns true exactly once, when the window ends and everything was silent.
    mutating func isSilent(after level: AudioLevel) -> Bool {
        guard !decided else { return false }
        loudest = max(loudest, level.peak)
        guard level.elapsed >= window else { return false }
        decided = true
        return loudest < threshold
    }
}
