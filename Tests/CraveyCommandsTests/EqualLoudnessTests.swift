import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Equal loudness end to end: clips recorded at different levels, played in process
/// (``Outcome``), come out of the sink at one loudness, measured on the sink's monitor by the same
/// R128 meter `LoudnessMeterTests` checks against ffmpeg's `ebur128`.
extension PlayCommandTests {
    /// A 3 s 1 kHz tone, peaking at `peak` dBFS (a sine's crest factor is 3 dB, so the ceiling
    /// never stops a quiet one short of the target).
    func tone(peak: Double) async throws -> URL {
        try await Fixture.make("m4a", ["-f", "lavfi", "-i", "sine=frequency=1000:duration=3:sample_rate=48000",
                                 "-af", "volume=\(peak + 18)dB", "-c:a", "aac", "-b:a", "128k"])
    }

    /// Plays `id` as a preview and returns the loudness (LUFS) and the largest sample the sink's
    /// monitor heard.
    func played(_ id: String, in library: RecordingLibrary, sink: String, _ extra: [String] = []) async throws
        -> (loudness: Double, peak: Float) {
        let capture = try await SinkCapture.start(sink: sink, rate: 48_000)
        let result = try await Outcome.of(["play", id, "--library", library.url.path,
                                           "--device", sink, "--no-count"] + extra)
        let samples = try await offPool { try capture.stop() }
        #expect(result.status == 0, "\(result.error)")
        var meter = LoudnessMeter(sampleRate: 48_000, channels: 1)
        meter.append(samples)
        return (meter.measurement.integrated, samples.map(abs).max() ?? 0)
    }

    @Test("two clips 12 dB apart play within 1 LU of each other, 12 dB apart with --no-normalize, and no sample clips")
    func equalLoudness() async throws {
        // Given a loud and a quiet clip, 12 dB apart
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try tone(peak: -6), try tone(peak: -18)])

        // When each is played with normalisation, then without
        let loud = try await played(ids[0], in: library, sink: sink.sinkName)
        let quiet = try await played(ids[1], in: library, sink: sink.sinkName)
        let loudAsIs = try await played(ids[0], in: library, sink: sink.sinkName, ["--no-normalize"])
        let quietAsIs = try await played(ids[1], in: library, sink: sink.sinkName, ["--no-normalize"])

        // Then the sink heard them at one loudness, or 12 dB apart as recorded, never clipping
        #expect(abs(loud.loudness - quiet.loudness) <= 1, "normalised: \(loud.loudness) vs \(quiet.loudness) LUFS")
        #expect(abs(loudAsIs.loudness - quietAsIs.loudness - 12) <= 0.5,
                "as recorded: \(loudAsIs.loudness) vs \(quietAsIs.loudness) LUFS")
        for heard in [loud, quiet, loudAsIs, quietAsIs] { #expect(heard.peak < 0.99, "peak \(heard.peak)") }
    }

    @Test("the play.loudness setting moves the level clips play at (-26 LUFS: 10 LU below the default); --no-normalize still plays a clip as recorded")
    func loudnessFromSettings() async throws {
        // Given a loud clip, and settings that ask for -26 LUFS
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try tone(peak: -6)])
        let quieter = temporaryFolder().appendingPathComponent("settings-\(UUID().uuidString.prefix(8)).toml")
        try Data("play.loudness = -26\n".utf8).write(to: quieter)
        func heard(_ settings: URL?, _ extra: [String] = []) async throws -> Double {
            let capture = try await SinkCapture.start(sink: sink.sinkName, rate: 48_000)
            let result = try await Outcome.of(["play", ids[0], "--library", library.url.path, "--device", sink.sinkName,
                                               "--no-count"] + extra, settings: settings)
            let samples = try await offPool { try capture.stop() }
            #expect(result.status == 0, "\(result.error)")
            var meter = LoudnessMeter(sampleRate: 48_000, channels: 1)
            meter.append(samples)
            return meter.measurement.integrated
        }

        // When it plays with the default, with the setting, and with the setting and --no-normalize
        let standard = try await heard(nil)
        let lowered = try await heard(quieter)
        let asRecorded = try await heard(quieter, ["--no-normalize"])

        // Then the setting turned it 10 LU further down, and the flag won over it
        #expect(abs(standard - lowered - 10) <= 1, "\(standard) and \(lowered) LUFS")
        #expect(asRecorded > standard + 3, "as recorded: \(asRecorded) LUFS")
    }

    @Test("a clip saved before loudness was measured is measured at its first play, and plays at the target")
    func measuredAtFirstPlay() async throws {
        // Given a quiet clip whose row lost its measurement, as a row from before the migration has none
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try tone(peak: -6), try tone(peak: -18)])
        let database = library.url.appendingPathComponent("library.sqlite").path
        let cleared = try await run("sqlite3", [database, "UPDATE recording SET loudnessIntegrated = NULL, loudnessTruePeak = NULL"])
        #expect(cleared.status == 0, "\(cleared.error)")
        #expect(try library.recording(matching: ids[1]).loudness == nil)

        // When both are played
        let loud = try await played(ids[0], in: library, sink: sink.sinkName)
        let quiet = try await played(ids[1], in: library, sink: sink.sinkName)

        // Then both were measured, stored, and heard at one loudness
        #expect(try library.recording(matching: ids[1]).loudness != nil)
        #expect(abs(loud.loudness - quiet.loudness) <= 1, "\(loud.loudness) vs \(quiet.loudness) LUFS")
    }
}
