import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey clean` where only a process shows it: stdin not a terminal. (What it cleans, its
/// figures and its other refusals: CraveyCommandsTests' CleanCommandTests.)
@Suite("cravey clean", .temporaryFiles)
struct CleanCommandTests {
    let library = temporaryLibrary()

    @Test("without --yes and without a terminal it refuses (64) before any work, changing nothing (--dry-run: CraveyCommandsTests' CleanCommandTests)")
    func refusesUnasked() async throws {
        let imported = try await Cravey.run(["import", try await Fixture.audio(seconds: 2).path, "--title", "Fan", "--library", library.path])
        try #require(imported.status == 0, "\(imported.error)")
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let media = library.appendingPathComponent("Recordings/audio_\(id).m4a")
        let bytes = try Data(contentsOf: media)
        let unasked = try await Cravey.run(["clean", id, "--library", library.path])
        #expect(unasked.status == 64 && unasked.error.contains("Refusing to clean without confirmation"), "\(unasked.error)")
        #expect(try Data(contentsOf: media) == bytes)
        let names = try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Recordings").path)
        #expect(names.allSatisfy { !$0.hasSuffix(".importing") }, "\(names)")
    }
}
