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

    @Test("quiet stretches to skip: a second or more under the threshold, 250 ms kept at each end; a short pause and a clip all noise have none")
    func quietSpans() throws {
        // A voice, 3 s of silence, a voice, 0.8 s of silence, a voice, 1 s of silence at the end
        let spans = waveform([(1, 16_000), (3, 0), (1, 16_000), (0.8, 0), (1, 16_000), (1, 0)]).quietSpans()
        #expect(spans.count == 2)
        #expect(abs(spans[0].lowerBound - 1.25) < 1e-9 && abs(spans[0].upperBound - 3.75) < 1e-9)
        #expect(abs(spans[1].lowerBound - 7.05) < 1e-9 && abs(spans[1].upperBound - 7.55) < 1e-9)
        // Under a fan's steady noise the voice still stands out: the noise between is quiet
        let fan = Int16(32768 * pow(10, -40.0 / 20))
        #expect(waveform([(1, 20_000), (2, fan), (1, 20_000)]).quietSpans().count == 1)
        // Nothing stands out of the noise: nothing is quiet, nothing skipped; nor in a silent clip
        #expect(waveform([(4, fan)]).quietSpans().isEmpty)
        #expect(waveform([(4, 0)]).quietSpans().isEmpty)
    }

    @Test("the threshold follows the clip's own noise: a fan at -40 dBFS peaks puts it at -28 dBFS, and the voice above it is found")
    func followsNoiseFloor() throws {
        let fan = Int16(32768 * pow(10, -40.0 / 20))
        let proposal = try #require(waveform([(2, fan), (2, 20_000), (2, fan)]).proposedTrim(duration: 6))
        #expect(abs(proposal.noiseFloor - -40) < 0.1 && abs(proposal.threshold - -28) < 0.1)
        #expect(abs(proposal.start - 1.85) < 1e-9 && abs(proposal.end - 4.15) < 1e-9)
    }

    /// The 10 ms peaks (48 kHz) of 4 s of steady `noise` (white, pink or brown, its RMS at
    /// `noiseLevel` dBFS) with a 440 Hz tone of amplitude `voiceLevel` dBFS from 1 s to 3 s:
    /// computed sample by sample, as the decoder's samples would be peaked.
    func noisyClip(noise: NoiseColour, noiseLevel: Double, voiceLevel: Double, seed: UInt64) -> Waveform {
        let rate = 48_000, count = 4 * rate
        var random = SplitMix(seed: seed)
        var filter = (b0: 0.0, b1: 0.0, b2: 0.0, brown: 0.0)
        var noiseSamples = [Double](repeating: 0, count: count)
        for index in 0..<count {
            // Gaussian white noise (Box-Muller), then coloured.
            let white = (-2 * log(random.unit())).squareRoot() * cos(2 * .pi * random.unit())
            switch noise {
            case .white:
                noiseSamples[index] = white
            case .pink:  // Paul Kellett's economy filter: -3 dB an octave
                filter.b0 = 0.99765 * filter.b0 + white * 0.0990460
                filter.b1 = 0.96300 * filter.b1 + white * 0.2965164
                filter.b2 = 0.57000 * filter.b2 + white * 1.0526913
                noiseSamples[index] = filter.b0 + filter.b1 + filter.b2 + white * 0.1848
            case .brown:  // -6 dB an octave, as FFmpeg's anoisesrc makes it (a leaky integrator)
                filter.brown = (filter.brown + 0.02 * white) / 1.02
                noiseSamples[index] = filter.brown
            }
        }
        let rms = (noiseSamples.reduce(0) { $0 + $1 * $1 } / Double(count)).squareRoot()
        let noiseGain = pow(10, noiseLevel / 20) / rms, voiceGain = pow(10, voiceLevel / 20)
        var peaks: [Waveform.Peak] = []
        for start in stride(from: 0, to: count, by: 480) {
            var low = 0, high = 0
            for index in start..<start + 480 {
                let time = Double(index) / Double(rate)
                let voice = time >= 1 && time < 3 ? voiceGain * sin(2 * .pi * 440 * time) : 0
                let sample = Int((max(min(noiseSamples[index] * noiseGain + voice, 1), -1) * 32767).rounded())
                low = min(low, sample)
                high = max(high, sample)
            }
            peaks.append(.init(min: Int16(low), max: Int16(high)))
        }
        return Waveform(sampleRate: rate, samplesPerPeak: 480, peaks: peaks)
    }

    enum NoiseColour: CaseIterable {
        case white, pink, brown
    }

    /// A seeded generator (SplitMix64): the same noise on every run.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        /// A number in (0, 1].
        mutating func unit() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return (Double((z ^ (z >> 31)) >> 11) + 1) / Double(1 << 53)
        }
    }

    @Test("steady noise within 12-30 dB of the voice (white, pink, brown; -50 to -20 dBFS): the threshold rises above the noise's peaks and the voice at 1-3 s is found, 0.85-3.15 s kept",
          arguments: NoiseColour.allCases, [-50.0, -40, -30, -24, -20])
    func steadyNoiseUnderTheVoice(noise: NoiseColour, noiseLevel: Double) throws {
        for separation in [12.0, 15, 18, 20, 25, 30] where noiseLevel + separation <= -1 {
            let clip = noisyClip(noise: noise, noiseLevel: noiseLevel, voiceLevel: noiseLevel + separation,
                                 seed: UInt64(noiseLevel.magnitude * 100 + separation))
            let proposal = try #require(clip.proposedTrim(duration: 4), "\(noise) at \(noiseLevel), voice \(separation) dB over it: no sound found")
            #expect(abs(proposal.start - 0.85) < 0.03 && abs(proposal.end - 3.15) < 0.03,
                    "\(noise) at \(noiseLevel) dBFS, voice \(separation) dB over it: kept \(proposal.start)-\(proposal.end), floor \(proposal.noiseFloor), threshold \(proposal.threshold)")
            // The threshold is over the noise: at most 2% of the noise's own peaks (before 0.8 s, after 3.2 s) reach it
            let level = Int((pow(10, proposal.threshold / 20) * 32768).rounded(.up))
            let noisePeaks = clip.peaks[0..<80] + clip.peaks[320...]
            let reaching = noisePeaks.filter { max(-Int($0.min), Int($0.max)) >= level }.count
            #expect(proposal.threshold > proposal.noiseFloor && reaching * 50 <= noisePeaks.count,
                    "\(noise) at \(noiseLevel): \(reaching) of \(noisePeaks.count) noise peaks reach the threshold \(proposal.threshold) over a floor of \(proposal.noiseFloor)")
        }
    }

    @Test("the threshold: 12 dB over the floor in a quiet room; halfway to the loudest peak where the noise is near the voice, never under the floor; 20 dB under the loudest where nothing stands out")
    func thresholdRule() {
        #expect(Waveform.threshold(floor: -60, loudest: -6) == -48)
        #expect(Waveform.threshold(floor: -96, loudest: -6) == -70)
        for floor in stride(from: -60.0, through: -10, by: 5) {
            for above in stride(from: 6.0, through: 40, by: 2) where floor + above <= 0 {
                let threshold = Waveform.threshold(floor: floor, loudest: floor + above)
                #expect(threshold > floor && threshold < floor + above && threshold <= floor + 12, "floor \(floor), loudest \(floor + above): \(threshold)")
            }
        }
        #expect(Waveform.threshold(floor: -20, loudest: -17) == -37)
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
