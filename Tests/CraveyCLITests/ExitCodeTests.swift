import CraveyTestSupport
import Foundation
import Testing

/// Exit codes for input cravey cannot take: 64 with a message naming what to change, never
/// another code and never the help with exit 0.
@Suite("Exit codes for invalid input")
struct ExitCodeTests {
    @Test("record --seconds under 0.1, negative, NaN or infinite is refused as invalid input (64), naming the range",
          arguments: ["1e-9", "0.09", "0", "-1", "nan", "inf", "86401"])
    func recordSecondsOutOfRange(seconds: String) async throws {
        // Given an empty library
        let library = temporaryLibrary().path

        // When recording for a duration outside 0.1 s to 24 h
        let result = try await Cravey.run(["record", "--library", library, "--seconds", seconds])

        // Then nothing is recorded and the error names the option and its range
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains("--seconds") && result.error.contains("0.1") && result.error.contains("86400"),
                "\(result.error)")
        #expect(result.output.isEmpty)
    }
}
