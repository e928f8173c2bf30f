import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey clean`, run in process (``Outcome``) as `cravey-media` runs it, on speech (espeak-ng)
/// with pink noise at a known level. (The sound it leaves, measured by ffmpeg:
/// CleanedSoundTests.swift; its refusal without --yes when stdin is not a terminal: the CLI's
/// CleanCommandTests.)
@Suite("cravey clean, in process", .temporaryFiles)
struct CleanCommandTests {
    let library = temporaryLibrary()

    /// Imports `file` as "Fan"; its id and its media file.
    func imported(_ file: URL) async throws -> (id: String, media: URL) {
        let result = try await Outcome.of(["import", file.path, "--title", "Fan", "--library", library.path])
        try #require(result.status == 0, "\(result.error)")
        let id = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return (id, library.appendingPathComponent("Recordings/audio_\(id).m4a"))
    }

    @Test("--dry-run prints the figures and changes nothing (without --yes and without a terminal: the CLI's CleanCommandTests)")
    func changesNothingUnasked() async throws {
        let (id, media) = try await imported(try Fixture.speechOverNoise(noise: 0.02))
        let bytes = try Data(contentsOf: media)
        let dry = try await Outcome.of(["clean", id, "--dry-run", "--library", library.path])
        #expect(dry.status == 0 && dry.error.contains("Nothing was changed"), "\(dry.error)")
        #expect(try Data(contentsOf: media) == bytes)
        let names = try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Recordings").path)
        #expect(names.allSatisfy { !$0.hasSuffix(".importing") }, "\(names)")
    }
}
