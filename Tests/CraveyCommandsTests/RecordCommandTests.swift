import CraveyTestSupport
import Foundation
import Testing

/// `cravey record`'s refusals, run in process (``Outcome``) as `cravey-media` runs it, against
/// the private sound server. (What it records, and its ways to stop: the CLI's RecordCommandTests.)
@Suite("cravey record, in process", .temporaryFiles)
struct RecordCommandTests {
    let library = temporaryLibrary()

    @Test("a 41-character title exits 64 and writes nothing")
    func titleTooLong() async throws {
        let result = try await Outcome.of(["record", "--library", library.path, "--seconds", "1",
                                     "--title", String(repeating: "x", count: 41)])
        #expect(result.status == 64)
        #expect(result.error.contains("title") && result.error.contains("40"))
        #expect(result.output.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: library.path), "no library folder was created")
    }

    @Test("an unknown --device exits 69 and points at `cravey devices`")
    func unknownDevice() async throws {
        let result = try await Outcome.of(["record", "--library", library.path, "--seconds", "1", "--device", "nope"])
        #expect(result.status == 69)
        #expect(result.error.contains("'nope'") && result.error.contains("cravey devices"))
    }
}
