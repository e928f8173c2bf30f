import CraveyCore
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

@Suite("Loudness meter (EBU R128) against ffmpeg's ebur128", .temporaryFiles)
struct LoudnessMeterTests {
    struct Signal: Sendable, CustomTestStringConvertible {
        var name: String
        var source: String
        var rate: Int
        var channels: Int
        var testDescription: String { name }
    }

    /// Noise is band-limited below the Nyquist frequency: there the true peak depends on the
    /// reconstruction filter, and ffmpeg's (libswresample to 192 kHz) read full-band noise and a
    /// 12 kHz tone at 48 kHz 0.5 to 0.9 dB above a long Kaiser-windowed 16x upsampler, which this
    /// meter matched within 0.25 dB (measured by hand with scipy's resample_poly).
    static let signals: [Signal] = [
        Signal(name: "997 Hz tone at -20 dBFS, 48 kHz mono", source: "aevalsrc=0.1*sin(2*PI*997*t):s=48000:d=10", rate: 48_000, channels: 1),
        Signal(name: "440 Hz tone, -6 and -12 dBFS, 44.1 kHz stereo",
               source: "aevalsrc=0.5*sin(2*PI*440*t)|0.25*sin(2*PI*440*t):s=44100:d=8", rate: 44_100, channels: 2),
        Signal(name: "100 Hz tone near full scale, 16 kHz", source: "aevalsrc=0.9*sin(2*PI*100*t):s=16000:d=6", rate: 16_000, channels: 1),
        Signal(name: "inter-sample peaks: 5 kHz at 44.1 kHz", source: "aevalsrc=0.5*sin(2*PI*5000*t+PI/4):s=44100:d=5", rate: 44_100, channels: 1),
        Signal(name: "pink noise, 44.1 kHz", source: "anoisesrc=color=pink:amplitude=0.3:sample_rate=44100:seed=7:d=10", rate: 44_100, channels: 1),
        Signal(name: "quiet white noise below 20 kHz, 96 kHz",
               source: "anoisesrc=color=white:amplitude=0.01:sample_rate=96000:seed=3:d=5,lowpass=f=20000,lowpass=f=20000", rate: 96_000, channels: 1),
        Signal(name: "speech-like bursts, pauses over a -45 LUFS floor the relative gate drops, 48 kHz stereo",
               source: "aevalsrc=0.5*(random(0)-0.5)*(0.6+0.4*sin(2*PI*5*t))*gt(sin(2*PI*0.3*t)\\,-0.2)+0.02*(random(1)-0.5)|0.3*(random(2)-0.5)*(0.6+0.4*sin(2*PI*4*t))*gt(sin(2*PI*0.3*t)\\,-0.2):s=48000:d=20",
               rate: 48_000, channels: 2),
        Signal(name: "speech-like at -40 dBFS, 22.05 kHz",
               source: "aevalsrc=0.02*(random(0)-0.5)*(0.5+0.5*sin(2*PI*3*t))*gt(sin(2*PI*0.5*t)\\,0):s=22050:d=12,lowpass=f=4000,lowpass=f=4000",
               rate: 22_050, channels: 1),
    ]

    /// Writes `signal` as raw float samples, which both meters then read.
    func raw(_ signal: Signal) async throws -> (samples: [Float], input: [String]) {
        let samples = try await Witness.decodeFloat(["-f", "lavfi", "-i", signal.source])
        let url = temporaryFolder().appendingPathComponent("signal-\(UUID().uuidString).f32")
        try samples.withUnsafeBytes { try Data($0).write(to: url) }
        return (samples, ["-f", "f32le", "-ar", String(signal.rate), "-ac", String(signal.channels), "-i", url.path])
    }

    @Test("integrated loudness within 0.3 LU and true peak within 0.5 dB of ffmpeg's", arguments: signals)
    func matchesFFmpeg(signal: Signal) async throws {
        // Given a signal as raw samples
        let (samples, input) = try await raw(signal)
        // When both meters measure it
        var meter = LoudnessMeter(sampleRate: signal.rate, channels: signal.channels)
        meter.append(samples)
        let ours = meter.measurement
        let witness = try await Witness.ebur128(input)
        // Then they agree
        #expect(abs(ours.integrated - witness.integrated) <= 0.3, "integrated \(ours.integrated) vs ffmpeg \(witness.integrated)")
        #expect(abs(ours.truePeak - witness.truePeak) <= 0.5, "true peak \(ours.truePeak) vs ffmpeg \(witness.truePeak)")
        #expect(abs(meter.duration - Double(samples.count / signal.channels) / Double(signal.rate)) < 1e-9)
    }

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

    @Test("silence has no integrated loudness and no peak; ffmpeg agrees (it prints -70 and -inf); playback gives it no gain")
    func silence() async throws {
        // Given ten seconds of digital silence
        let signal = Signal(name: "silence", source: "anullsrc=r=48000:cl=stereo:d=10", rate: 48_000, channels: 2)
        let (samples, input) = try await raw(signal)
        // When measured
        var meter = LoudnessMeter(sampleRate: 48_000, channels: 2)
        meter.append(samples)
        let measurement = meter.measurement
        let witness = try await Witness.ebur128(input)
        // Then both are minus infinity, as ffmpeg's peak is and its gated loudness is at the gate
        #expect(measurement.isSilent && measurement.integrated == -.infinity && measurement.truePeak == -.infinity)
        #expect(witness.integrated <= -70 && witness.truePeak == -.infinity)
        #expect(measurement.playbackGain() == 0)
        #expect(measurement.description.hasPrefix("silent"))
    }

    @Test("nothing appended, or less than one 400 ms block: silent, with the peak of what came")
    func tooShort() {
        let empty = LoudnessMeter(sampleRate: 48_000, channels: 1)
        #expect(empty.measurement.isSilent && empty.measurement.truePeak == -.infinity && empty.duration == 0)
        var short = LoudnessMeter(sampleRate: 48_000, channels: 1)
        short.append((0..<9_600).map { Float(0.5 * sin(2 * Double.pi * 997 * Double($0) / 48_000)) })
        #expect(short.measurement.isSilent && abs(short.measurement.truePeak - 20 * log10(0.5)) < 0.1)
    }

    @Test("the same samples in chunks of any size measure exactly as in one piece")
    func chunkingChangesNothing() async throws {
        // Given a speech-like stereo signal
        let (samples, _) = try await raw(Self.signals[6])
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

    @Test("a media file measures as ffmpeg measures it: a mono one as dual mono, 5.1 mixed down to stereo",
          arguments: [
            ["-f", "lavfi", "-i", "aevalsrc=0.05*sin(2*PI*440*t):s=48000:d=4", "-c:a", "aac", "-b:a", "96k"],
            ["-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.5:sample_rate=44100:seed=1:d=4", "-ac", "2", "-c:a", "pcm_s16le"],
            ["-f", "lavfi", "-i", "aevalsrc=0.3*sin(2*PI*300*t)|0.3*sin(2*PI*500*t)|0.2*sin(2*PI*700*t)|0.1*sin(2*PI*60*t)|0.2*sin(2*PI*900*t)|0.2*sin(2*PI*1100*t):s=48000:d=3:c=5.1",
             "-c:a", "flac"],
          ])
    func measuresFiles(arguments: [String]) async throws {
        // Given a media file
        let ext = arguments.contains("aac") ? "m4a" : arguments.contains("flac") ? "flac" : "wav"
        let url = try await Fixture.make(ext, arguments)
        // When measured as the library plays it
        let ours = try #require(try LoudnessMeter.measure(fileAt: .outside(url)))
        // Then it agrees with ffmpeg measuring it the same way (6 channels mixed to stereo first)
        let channels = try await Witness.ffprobeChannels(url)
        let witness = try await Witness.ebur128(["-i", url.path], dualMono: channels == 1,
                                          filters: channels > 2 ? "aformat=channel_layouts=stereo," : "")
        #expect(abs(ours.integrated - witness.integrated) <= 0.3, "integrated \(ours.integrated) vs ffmpeg \(witness.integrated)")
        #expect(abs(ours.truePeak - witness.truePeak) <= 0.5, "true peak \(ours.truePeak) vs ffmpeg \(witness.truePeak)")
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
