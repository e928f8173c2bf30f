import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// The sound `cravey clean` leaves, run in process (``Outcome``), decoded and measured by ffmpeg
/// as the witness: the noise floor, the speech level, the samples in place.
extension CleanCommandTests {
    /// RMS (dBFS) of decoded samples from `from` to `to` seconds (48 kHz mono).
    static func level(_ samples: [Float], _ from: Double, _ to: Double) -> Double {
        let part = samples[Int(from * 48_000)..<min(Int(to * 48_000), samples.count)]
        return 10 * log10(part.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(part.count, 1)))
    }

    @Test("speech over pink noise at -48 dBFS: the noise floor drops by at least 10 dB, the speech level moves by at most 1 dB, the sound stays in place sample for sample, and the figures are printed")
    func removesNoise() async throws {
        let (id, media) = try await imported(try Fixture.speechOverNoise(noise: 0.02))
        let before = try await Witness.decodeFloat(["-i", media.path])
        let speechBefore = try await Witness.ebur128(["-i", media.path], dualMono: true).integrated

        let cleaned = try await Outcome.of(["clean", id, "--yes", "--json", "--library", library.path])
        try #require(cleaned.status == 0, "\(cleaned.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(cleaned.output.utf8)) as? [String: Any])
        #expect(report["kept"] as? Bool == true)
        let floorBefore = try #require(report["noiseFloorBefore"] as? Double), floorAfter = try #require(report["noiseFloorAfter"] as? Double)
        #expect(floorBefore - floorAfter >= 10, "printed \(floorBefore) -> \(floorAfter)")
        #expect(cleaned.error.contains("Noise floor:") && cleaned.error.contains("speech level"), "\(cleaned.error)")

        let after = try await Witness.decodeFloat(["-i", media.path])
        #expect(after.count == before.count, "the same length")
        // Noise alone: the lead-in and the tail, measured by ffmpeg's decoding
        for (from, to) in [(0.2, 1.3), (Double(before.count) / 48_000 - 1.2, Double(before.count) / 48_000 - 0.2)] {
            let drop = Self.level(before, from, to) - Self.level(after, from, to)
            #expect(drop >= 10, "noise at \(from)-\(to) s: \(Self.level(before, from, to)) -> \(Self.level(after, from, to)) dBFS")
        }
        let speechAfter = try await Witness.ebur128(["-i", media.path], dualMono: true).integrated
        #expect(abs(speechAfter - speechBefore) <= 1, "speech \(speechBefore) -> \(speechAfter) LUFS")
        // In place: the cleaned speech lines up with the original (no filter delay left)
        let window = before[96_000..<120_000]
        let lag = (-50...50).map { lag in
            (lag, zip(window, after[(96_000 + lag)...]).reduce(Float(0)) { $0 + $1.0 * $1.1 })
        }.max { $0.1 < $1.1 }?.0
        #expect(abs(lag ?? 99) <= 2, "the cleaned sound is \(lag ?? 99) samples off")
        let doctor = try await Outcome.of(["doctor", "--library", library.path])
        #expect(doctor.status == 0, "\(doctor.output)")
    }

    @Test("a clip without noise (a good microphone's hiss at -80 dBFS) is left about as it was; one whose pauses are digital silence has no noise to learn and is refused (64), unchanged")
    func noNoise() async throws {
        let (id, media) = try await imported(try Fixture.speechOverNoise(noise: 0.0002, color: "white"))
        let speechBefore = try await Witness.ebur128(["-i", media.path], dualMono: true).integrated
        let cleaned = try await Outcome.of(["clean", id, "--yes", "--library", library.path])
        try #require(cleaned.status == 0, "\(cleaned.error)")
        #expect(abs(try await Witness.ebur128(["-i", media.path], dualMono: true).integrated - speechBefore) <= 0.5)

        let (silent, silentMedia) = try await imported(try Fixture.speechOverNoise(noise: 0))
        let bytes = try Data(contentsOf: silentMedia)
        let refused = try await Outcome.of(["clean", silent, "--yes", "--library", library.path])
        #expect(refused.status == 64 && refused.error.contains("no stretch of noise alone"), "\(refused.status) \(refused.error)")
        #expect(try Data(contentsOf: silentMedia) == bytes)
    }
}
