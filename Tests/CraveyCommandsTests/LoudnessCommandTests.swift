import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `info` and `doctor` about loudness, run in process (``Outcome``) as the two mains run them.
@Suite("cravey info and doctor show loudness", .temporaryFiles)
struct LoudnessCommandTests {
    @Test("info says a clip is not measured and how to measure it; doctor counts it; doctor --repair measures it; info then shows it; --json is unchanged")
    func infoAndDoctor() async throws {
        // Given a clip saved without a measurement, as clips were before loudness was measured
        let library = try await Fixture.library(titles: ["Breathe"])
        let recording = try #require(try library.recordings().first)
        let path = library.url.path
        let id = String(recording.id.description.prefix(8))
        let jsonBefore = try await Outcome.of(["info", id, "--json", "--library", path])

        // When info and doctor look at it
        let before = try await Outcome.of(["info", id, "--library", path])
        let doctor = try await Outcome.of(["doctor", "--library", path])

        // Then info says how to measure it, and doctor counts it without calling it a fault or measuring it
        #expect(before.status == 0)
        #expect(before.output.contains("Loudness:    not measured yet (`cravey doctor --repair` measures it, as does playing it once)"), "\(before.output)")
        #expect(doctor.status == 0, "\(doctor.error)")
        #expect(doctor.output.contains("The library is healthy."))
        #expect(doctor.output.contains("loudness not measured yet: 1 recording; `cravey doctor --repair` measures it"), "\(doctor.output)")
        #expect(try library.recording(recording.id)?.loudness == nil)

        // When doctor repairs
        let repaired = try await Outcome.of(["doctor", "--repair", "--library", path])

        // Then it says how many it measured, and info shows the measurement as stored
        #expect(repaired.status == 0, "\(repaired.error)")
        #expect(repaired.output.contains("repaired: Measured the loudness of 1 recording."), "\(repaired.output)")
        let measured = try #require(try library.recording(recording.id)?.loudness)
        let after = try await Outcome.of(["info", id, "--library", path])
        let expected = String(format: "Loudness:    %.1f LUFS, true peak %.1f dBTP", measured.integrated, measured.truePeak)
        #expect(after.output.contains(expected), "\(after.output)")
        #expect(!(try await Outcome.of(["doctor", "--library", path])).output.contains("loudness"))

        // And the JSON is byte for byte what it was: loudness is not part of it
        let jsonAfter = try await Outcome.of(["info", id, "--json", "--library", path])
        #expect(jsonAfter.status == 0 && jsonAfter.output == jsonBefore.output)
    }
}
