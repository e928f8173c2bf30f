import CraveyCore
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// The meter against ffmpeg's `ebur128` on the same samples and files: integrated loudness within
/// 0.3 LU, true peak within 0.5 dB.
extension LoudnessMeterTests {
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
}
