import Testing
@testable import CraveyCore

/// A loudness read from a row or a backup is believed only when a measurement could give it.
@Suite("A loudness measurement's plausibility")
struct LoudnessMeasurementTests {
    @Test("a loudness no measurement gives is never applied: it reads as not measured, and no gain is past 30 dB")
    func implausibleLoudness() {
        #expect(LoudnessMeasurement(integrated: 200, truePeak: 180).playbackGain() == 0)
        #expect(LoudnessMeasurement(integrated: -69, truePeak: -60).playbackGain() <= LoudnessMeasurement.largestBoost)
        #expect(!LoudnessMeasurement(integrated: -300, truePeak: -2).isPlausible)
        #expect(LoudnessMeasurement(integrated: -.infinity, truePeak: -.infinity).isPlausible)
    }
}
