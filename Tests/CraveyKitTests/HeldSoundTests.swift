import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// The sound `record` and `import` hold before encoding it, for the new clip's words
/// (``HeldSound``): what it holds, for how long, and that it is the sound the clip's file was made from.
@Suite("Held sound: a new clip's sound before it is encoded", .temporaryFiles)
struct HeldSoundTests {
    /// The 16 kHz mono float samples of `data` (the transcriber's stdin, ``Speech/samples(of:)``).
    func floats(_ data: Data) -> [Float] {
        data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The RMS of each tenth of a second of `samples` at 16 kHz.
    func levels(_ samples: [Float]) -> [Float] {
        stride(from: 0, to: samples.count - 1_599, by: 1_600).map { start in
            (samples[start..<start + 1_600].reduce(0) { $0 + $1 * $1 } / 1_600).squareRoot()
        }
    }

    @Test("a held sound is given only once whole, and is let go past 10 minutes, or when a stretch of it failed")
    func wholeOrNothing() {
        let sound = HeldSound()
        sound.append([0.5, -0.5])
        #expect(sound.samples == nil, "not whole yet")
        sound.finish()
        sound.append([1])
        #expect(sound.samples == [0.5, -0.5], "nothing added once whole")

        let long = HeldSound()
        let minute = [Float](repeating: 0.1, count: SpeechAudio.sampleRate * 60)
        for _ in 0..<10 { long.append(minute) }
        long.append([0.1])
        long.finish()
        #expect(long.samples == nil, "10 minutes and a sample")

        let failed = HeldSound()
        failed.append([0.2])
        failed.drop()
        failed.append([0.3])
        failed.finish()
        #expect(failed.samples == nil)
    }

    @Test("a recording not asked to hold its sound (no words to hear) holds none: nothing resampled, nothing kept")
    func recordingHoldsNothingUnasked() async throws {
        let microphone = try await VirtualMicrophone()
        let library = try await Fixture.library(clips: 0)
        let recorder = try await library.record(RecordingOptions(source: microphone.monitor, maxDuration: 0.5))
        for await _ in recorder.events {}
        _ = try await recorder.save(try RecordingMetadata(title: "Unheard"))
        #expect(recorder.sound.samples == nil)
    }

    @Test("a recording holds what it captured, at 16 kHz: as long as the clip, the tone and the silence where its file has them")
    func recordingHoldsItsSound() async throws {
        // Given a recording of a tone stopped after about 1 s, and of a second's silence after the
        // stop took effect (a fixed length once ended before the stop had: on a loaded machine
        // unloading the tone took seconds, and a 5 s clip held only the tone)
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        let library = try await Fixture.library(clips: 0)
        var options = RecordingOptions(source: microphone.monitor, maxDuration: 120)
        options.holdsSound = true
        let recorder = try await library.record(options)
        var (stopped, silentFrom): (Bool, Double?) = (false, nil)
        for await event in recorder.events {
            guard case .level(let level) = event else { continue }
            if !stopped, level.elapsed >= 1 {
                await tone.stop()
                stopped = true
            } else if stopped, silentFrom == nil, level.peak < -60 {
                silentFrom = level.elapsed
            } else if let silentFrom, level.elapsed >= silentFrom + 1 {
                recorder.stop()
            }
        }
        let recorded = try await recorder.save(try RecordingMetadata(title: "Recorded"))

        // Then its held sound is the clip's length, and level for level its file's decoding
        let held = try #require(recorder.sound.samples, "no sound held")
        #expect(abs(Double(held.count) / Double(SpeechAudio.sampleRate) - recorded.duration) < 0.01,
                "\(held.count) samples for \(recorded.duration) s")
        let decoded = floats(try await Speech.samples(of: try library.fileURL(of: recorded)))
        let (ours, file) = (levels(held), levels(decoded))
        #expect(ours.contains { $0 > 0.2 } && ours.contains { $0 < 0.001 }, "tone, then silence: \(ours)")
        // Away from the tone's stop, which AAC spreads over its window: the first tenth below the
        // tone's level (0.354), the one before it and the one after (the first silent tenth
        // left 2 of 5 runs comparing a tenth before the stop against the file's pre-echo).
        let stop = (ours.firstIndex { $0 < 0.3 } ?? 0)
        for index in 0..<min(ours.count, file.count) where abs(index - stop) > 1 {
            #expect(abs(ours[index] - file[index]) < 0.02, "tenth \(index): held \(ours[index]), file \(file[index])")
        }
    }

    @Test("an import that converts holds the sound it decoded, as ffmpeg decodes the file at 16 kHz; one kept as it is holds none")
    func importHoldsWhatItDecoded() async throws {
        // Given a WAV of tone bursts, converted on import
        let wav = try await Fixture.toneBursts([0.5, 0.1, 0.9])
        let library = try await Fixture.library(clips: 0)
        let sound = HeldSound()
        let recording = try await Importer.importFile(at: wav, into: library.store, metadata: try RecordingMetadata(title: "Bursts"),
                                                      holding: sound)

        // Then the sound held is the WAV's at 16 kHz, sample for sample, as long as the clip
        let held = try #require(sound.samples, "no sound held")
        let witness = floats(try await Speech.samples(of: wav))
        #expect(abs(held.count - witness.count) <= 16, "\(held.count) samples, ffmpeg's \(witness.count)")
        let largest = zip(held, witness).map { abs($0 - $1) }.max() ?? 1
        #expect(largest < 1e-3, "samples differ by up to \(largest)")
        #expect(abs(Double(held.count) / Double(SpeechAudio.sampleRate) - recording.duration) < 0.05)

        // And an AAC .m4a, kept as it is, holds nothing: its media is the sound already
        let aac = try await Fixture.toneBursts([0.5], ext: "m4a", codec: ["-c:a", "aac"])
        let kept = HeldSound()
        _ = try await Importer.importFile(at: aac, into: library.store, metadata: try RecordingMetadata(title: "Kept"), holding: kept)
        #expect(kept.samples == nil)
    }
}
