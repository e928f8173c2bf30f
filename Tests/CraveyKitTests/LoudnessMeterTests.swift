import CraveyCore
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// The loudness meter on samples made here and on files that hold no sound;
/// LoudnessMeterWitnessTests.swift measures signals and files with ffmpeg's `ebur128` beside it.
@Suite("Loudness meter (EBU R128) against ffmpeg's ebur128", .temporaryFiles)
struct LoudnessMeterTests {
    @Test("the true peak sees between samples: a 12 kHz tone whose samples reach 0.71 of it reads -6 dBTP, not -9")
    func truePeakBetweenSamples() throws {
        // Given a sine at a quarter of the rate, sampled 45 degrees off its crests
        let samples = (0..<48_000).map { Float(0.5 * sin(Double.pi / 2 * Double($0) + Double.pi / 4)) }
        // When measured
        var meter = LoudnessMeter(sampleRate: 48_000, channels: 1)
        meter.append(samples)
        // Then the true peak is the sine's, 3 dB above the highest sample
        #expect(abs(meter.measurement.truePeak - 20 * log10(0.5)) < 0.2, "\(meter.measurement.truePeak)")
    }

    @Test("nothing appended, or less than one 400 ms block: silent, with the peak of what came")
    func tooShort() {
        let empty = LoudnessMeter(sampleRate: 48_000, channels: 1)
        #expect(empty.measurement.isSilent && empty.measurement.truePeak == -.infinity && empty.duration == 0)
        var short = LoudnessMeter(sampleRate: 48_000, channels: 1)
        short.append((0..<9_600).map { Float(0.5 * sin(2 * Double.pi * 997 * Double($0) / 48_000)) })
        #expect(short.measurement.isSilent && abs(short.measurement.truePeak - 20 * log10(0.5)) < 0.1)
    }

    /// Speech-like stereo at 48 kHz: noise bursts swelling at 5 Hz (left) and 4 Hz (right), cut
    /// to pauses over a quiet floor for 1.45 s of every 3.3 s, which the relative gate drops.
    /// The noise is a fixed 64-bit LCG's, so every run measures the same samples.
    static func speechLike(seconds: Int) -> [Float] {
        var state: UInt64 = 7
        func noise() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) - 0.5
        }
        var samples: [Float] = []
        samples.reserveCapacity(seconds * 48_000 * 2)
        for frame in 0..<(seconds * 48_000) {
            let t = Double(frame) / 48_000
            let open: Double = sin(2 * .pi * 0.3 * t) > -0.2 ? 1 : 0
            samples.append(Float(0.5 * noise() * (0.6 + 0.4 * sin(2 * .pi * 5 * t)) * open + 0.02 * noise()))
            samples.append(Float(0.3 * noise() * (0.6 + 0.4 * sin(2 * .pi * 4 * t)) * open))
        }
        return samples
    }

    @Test("the same samples in chunks of any size measure exactly as in one piece")
    func chunkingChangesNothing() {
        // Given 20 s of a speech-like stereo signal
        let samples = Self.speechLike(seconds: 20)
        var whole = LoudnessMeter(sampleRate: 48_000, channels: 2)
        whole.append(samples)
        // When appended in chunks of a random number of whole frames (1 to 20,000), so sub-blocks
        // close in the middle of chunks and chunks end in the middle of sub-blocks
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3 {
            var chunked = LoudnessMeter(sampleRate: 48_000, channels: 2)
            var start = 0
            while start < samples.count {
                let end = min(start + 2 * Int.random(in: 1...20_000, using: &generator), samples.count)
                chunked.append(Array(samples[start..<end]))
                start = end
            }
            // Then the measurement is the same to rounding
            #expect(abs(chunked.measurement.integrated - whole.measurement.integrated) < 1e-9)
            #expect(chunked.measurement.truePeak == whole.measurement.truePeak)
        }
    }

    @Test("signed 16-bit samples measure as their float equivalents")
    func signed16() {
        let floats = (0..<48_000).map { Float(0.25 * sin(2 * Double.pi * 1000 * Double($0) / 48_000)) }
        var a = LoudnessMeter(sampleRate: 48_000, channels: 1)
        a.append(floats)
        var b = LoudnessMeter(sampleRate: 48_000, channels: 1)
        b.append(floats.map { Int16(($0 * 32768).rounded()) })
        #expect(abs(a.measurement.integrated - b.measurement.integrated) < 0.01)
    }

    @Test("a video without sound has no measurement; a missing file is .notFound; a text file .undecodableMedia")
    func filesWithoutAudio() async throws {
        let silentVideo = try await Fixture.make("mp4", ["-f", "lavfi", "-i", "testsrc=duration=1:size=160x120:rate=25",
                                                   "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        #expect(try LoudnessMeter.measure(fileAt: .outside(silentVideo)) == nil)
        let missing = temporaryFolder().appendingPathComponent("missing.m4a")
        let missingError = #expect(throws: CraveyError.self) { try LoudnessMeter.measure(fileAt: .outside(missing)) }
        #expect(missingError?.kind == .notFound)
        let text = temporaryFolder().appendingPathComponent("notes.m4a")
        try Data("not media".utf8).write(to: text)
        let textError = #expect(throws: CraveyError.self) { try LoudnessMeter.measure(fileAt: .outside(text)) }
        #expect(textError?.kind == .undecodableMedia)
    }
}

@Suite("Playback gain toward -16 LUFS under a -1 dBTP ceiling")
struct PlaybackGainTests {
    @Test("a loud clip is turned down to the target")
    func loud() {
        let gain = LoudnessMeasurement(integrated: -9, truePeak: 0.5).playbackGain()
        #expect(gain == -7)
    }

    @Test("a quiet clip with a low peak is turned up all the way to the target")
    func quietLowPeak() {
        let gain = LoudnessMeasurement(integrated: -28, truePeak: -18).playbackGain()
        #expect(gain == 12)
    }

    @Test("a quiet clip with a high peak is turned up only until its peak reaches the ceiling")
    func quietHighPeak() {
        #expect(LoudnessMeasurement(integrated: -28, truePeak: -6).playbackGain() == 5)
        // A peak already past the ceiling: not turned up, and not turned down either.
        #expect(LoudnessMeasurement(integrated: -28, truePeak: 0.3).playbackGain() == 0)
    }

    @Test("silence gets no gain, whatever its peak; other targets and ceilings are honoured")
    func silenceAndParameters() {
        #expect(LoudnessMeasurement(integrated: -.infinity, truePeak: -.infinity).playbackGain() == 0)
        #expect(LoudnessMeasurement(integrated: -.infinity, truePeak: -50).playbackGain() == 0)
        #expect(LoudnessMeasurement(integrated: -23, truePeak: -10).playbackGain(target: -18, ceiling: -2) == 5)
        #expect(LoudnessMeasurement(integrated: -23, truePeak: -4).playbackGain(target: -18, ceiling: -2) == 2)
    }

    @Test("the description reads as info prints it")
    func description() {
        #expect(LoudnessMeasurement(integrated: -18.24, truePeak: -1.26).description == "-18.2 LUFS, true peak -1.3 dBTP")
    }
}

@Suite("Loudness meter on arbitrary input")
struct LoudnessMeterFuzzTests {
    @Test("random rates, channel counts, lengths, levels and chunkings: never NaN, silent only below the gate, the gain always finite")
    func arbitraryInput() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<60 {
            // Given a random signal: white noise, a tone, or silence, possibly with spikes and
            // values past full scale, at a random rate and channel count
            let rate = [8_000, 11_025, 16_000, 22_050, 32_000, 44_100, 48_000, 88_200, 96_000, 192_000].randomElement(using: &generator)!
            let channels = Int.random(in: 1...4, using: &generator)
            let frames = Int.random(in: 0...24_000, using: &generator)
            let level = Float(pow(10, Double.random(in: -5...0.5, using: &generator)))
            let kind = Int.random(in: 0..<3, using: &generator)
            var samples = (0..<frames * channels).map { index -> Float in
                switch kind {
                case 0: return Float.random(in: -level...level, using: &generator)
                case 1: return level * Float(sin(Double(index / channels) * 0.05))
                default: return 0
                }
            }
            if !samples.isEmpty, Bool.random(using: &generator) { samples[Int.random(in: 0..<samples.count, using: &generator)] = 4 }

            // When appended in random chunks of whole frames
            var meter = LoudnessMeter(sampleRate: rate, channels: channels, dualMono: Bool.random(using: &generator))
            var start = 0
            while start < samples.count {
                let end = min(start + channels * Int.random(in: 1...9_000, using: &generator), samples.count)
                meter.append(Array(samples[start..<end]))
                start = end
            }
            let measurement = meter.measurement

            // Then nothing is NaN, a measurement is silent exactly when it is minus infinity, and the gain is finite
            #expect(!measurement.integrated.isNaN && !measurement.truePeak.isNaN)
            // Bounded by the largest sample: the K-weighting's gain stays under +6 dB, dual mono
            // counts twice, and no interpolation phase sums to more than twice its input
            let largest = Double(samples.lazy.map(abs).max() ?? 0)
            if largest > 0 {
                #expect(measurement.integrated <= -0.691 + 10 * log10(2 * Double(channels) * largest * largest * 4))
                #expect(measurement.truePeak <= 20 * log10(2 * largest) && measurement.truePeak >= 20 * log10(largest) - 1e-4)
            }
            #expect(measurement.playbackGain().isFinite)
            #expect(abs(meter.duration - Double(frames) / Double(rate)) < 1e-9)
            if kind == 2 && samples.allSatisfy({ $0 == 0 }) { #expect(measurement.isSilent && measurement.truePeak == -.infinity) }
        }
    }
}
