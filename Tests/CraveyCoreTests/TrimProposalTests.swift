import Foundation
import Testing
@testable import CraveyCore

/// `trim --auto`'s proposal, made from a clip's peaks alone.
@Suite("Trim proposal")
struct TrimProposalTests {
    /// A waveform of 10 ms peaks: `parts` are (seconds, peak magnitude) in order.
    func waveform(_ parts: [(seconds: Double, magnitude: Int16)]) -> Waveform {
        var peaks: [Waveform.Peak] = []
        for (seconds, magnitude) in parts {
            peaks += Array(repeating: .init(min: -magnitude, max: magnitude), count: Int((seconds * 100).rounded()))
        }
        return Waveform(sampleRate: 48_000, samplesPerPeak: 480, peaks: peaks)
    }

    @Test("1 s of silence, 3 s of tone, 1.5 s of silence: keeps 0.85-4.15 s (150 ms each side), threshold -70 dBFS over a floor of digital silence")
    func silenceToneSilence() throws {
        let proposal = try #require(waveform([(1, 0), (3, 16_000), (1.5, 0)]).proposedTrim(duration: 5.5))
        #expect(abs(proposal.start - 0.85) < 1e-9 && abs(proposal.end - 4.15) < 1e-9)
        #expect(proposal.noiseFloor == -96 && proposal.threshold == -70)
        #expect(!proposal.keepsAll(of: 5.5))
    }

    @Test("the threshold follows the clip's own noise: a fan at -40 dBFS peaks puts it at -28 dBFS, and the voice above it is found")
    func followsNoiseFloor() throws {
        let fan = Int16(32768 * pow(10, -40.0 / 20))
        let proposal = try #require(waveform([(2, fan), (2, 20_000), (2, fan)]).proposedTrim(duration: 6))
        #expect(abs(proposal.noiseFloor - -40) < 0.1 && abs(proposal.threshold - -28) < 0.1)
        #expect(abs(proposal.start - 1.85) < 1e-9 && abs(proposal.end - 4.15) < 1e-9)
    }

    @Test("a lone click (a key, 30 ms) before the voice is not its first sound; a clip shorter than a sound still finds it")
    func clicksAreNotSound() throws {
        let proposal = try #require(waveform([(0.5, 0), (0.03, 30_000), (1, 0), (2, 10_000), (1, 0)]).proposedTrim(duration: 4.53))
        #expect(abs(proposal.start - 1.38) < 1e-9)
        let short = try #require(waveform([(0.03, 20_000)]).proposedTrim(duration: 0.03))
        #expect(short.start == 0 && abs(short.end - 0.03) < 1e-9)
    }

    @Test("a clip whose sound fills it keeps all of it; a silent clip proposes nothing")
    func nothingToCut() throws {
        let full = try #require(waveform([(3, 9_000)]).proposedTrim(duration: 3))
        #expect(full.keepsAll(of: 3))
        #expect(waveform([(3, 0)]).proposedTrim(duration: 3) == nil)
    }

    @Test("the quietest stretch passes over digital silence and finds the noise between words")
    func quietestStretch() throws {
        let stretch = try #require(waveform([(1, 0), (1, 300), (1, 12_000), (0.5, 80), (1, 12_000)]).quietestStretch(seconds: 0.5))
        #expect(abs(stretch.lowerBound - 3) < 1e-9 && abs(stretch.upperBound - 3.5) < 1e-9)
        #expect(waveform([(2, 0)]).quietestStretch(seconds: 0.5) == nil)
    }
}
