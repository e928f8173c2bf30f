import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Promises to a person about time: checked one at a time, in a pass of their own after the
/// parallel tests (`scripts/test` runs them so), because a 2-core machine running 30 tests at
/// once measures the scheduler, not cravey.
@Suite("Deadlines", .serialized, .temporaryFiles)
struct DeadlineTests {
    let library = temporaryLibrary()

    @Test("no sound server: exit 69 with a message naming the fix, within 2 s, nothing recorded")
    func noSoundServer() async throws {
        let started = Date()
        let result = try await Cravey.run(["record", "--library", library.path, "--seconds", "1"],
                                    environment: ["PULSE_SERVER": "unix:/nonexistent/cravey-test/native"])
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(result.status == 69)
        #expect(result.error.contains("No sound server") && result.error.contains("scripts/pulse start"))
        #expect(try await listed(library).isEmpty)
    }
}
