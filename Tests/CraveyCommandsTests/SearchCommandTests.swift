import CraveyCore
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands

/// `cravey search` on clips' titles, run in process (``Outcome``): what it prints for no match,
/// folded accents and `--limit`. (A word said, found by the real transcriber's words: the CLI's
/// SearchCommandTests; a bad query: UsageErrorTests.)
@Suite("The search command, in process", .temporaryFiles)
struct SearchCommandTests {
    /// The JSON array `--json` printed.
    func found(_ output: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]], "\(output)")
    }

    @Test("no match says so on stderr and exits 0 (--json: []); accents are folded and --limit keeps the best")
    func noMatch() async throws {
        let library = try await Fixture.library(titles: ["Café morning", "Evening walk"])
        let path = library.url.path
        let none = try await Outcome.of(["search", "lighthouse", "--library", path])
        #expect(none.status == 0 && none.output.isEmpty && none.error.contains("No clip matches 'lighthouse'"), "\(none)")
        let noneJSON = try await Outcome.of(["search", "lighthouse", "--json", "--library", path])
        #expect(try noneJSON.status == 0 && found(noneJSON.output).isEmpty)
        // Accents folded at the command too; --limit keeps the best
        let cafe = try await Outcome.of(["search", "cafe", "--json", "--library", path])
        #expect(try found(cafe.output).map { $0["title"] as? String } == ["Café morning"])
        let match = try #require(try found(cafe.output).first?["match"] as? [String: Any])
        #expect(match["field"] as? String == "title" && match["at"] is NSNull && match["snippet"] as? String == "[Café] morning", "\(match)")
        let both = try await Outcome.of(["search", "cafe", "OR", "walk", "--limit", "1", "--json", "--library", path])
        #expect(try found(both.output).count == 1)
    }
}
