import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Command-line rough edges a new user met (issue 20, item 5), each with the test that failed before.
@Suite("command-line rough edges", .temporaryFiles)
struct RoughEdgeTests {
    @Test("--title \"-2+3\" is a title for import and edit, not a file name or an option")
    func dashedTitle() async throws {
        // Given a library
        let library = temporaryLibrary().path

        // When a clip is imported and edited with titles starting with a dash
        let imported = try await Cravey.run(["import", "--library", library, try await Fixture.audio().path, "--title", "-2+3"])
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let edited = try await Cravey.run(["edit", id, "--library", library, "--title", "-4", "--notes", "-minus", "--json"])

        // Then both are taken as the titles and notes they are
        #expect(imported.status == 0 && !imported.error.contains("dash"), "\(imported.error)")
        #expect(edited.status == 0, "\(edited.error)")
        #expect(edited.output.contains("\"title\" : \"-4\"") && edited.output.contains("\"notes\" : \"-minus\""), "\(edited.output)")
    }

    @Test("spaces trimmed from the ends of a title or notes are reported, and the help says so")
    func trimmingIsSaid() async throws {
        // Given a clip
        let library = temporaryLibrary().path
        let id = try await Cravey.run(["import", "--library", library, try await Fixture.audio().path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)

        // When it is given a title with spaces around it
        let edited = try await Cravey.run(["edit", id, "--library", library, "--title", "  Breathe  ", "--json"])

        // Then the stored title is trimmed, and stderr says so
        #expect(edited.status == 0 && edited.output.contains("\"title\" : \"Breathe\""), "\(edited.output)")
        #expect(edited.error.contains("spaces at the ends of the title were removed"), "\(edited.error)")
        #expect(try await Cravey.run(["help", "edit"]).output.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("spaces at its ends are removed"))
    }

    @Test("export --format json's shape ({exportDate, recordings, version}) is what the help and docs/reference.md describe")
    func exportShapeIsDescribed() async throws {
        // Given the JSON export of a library
        let library = temporaryLibrary().path
        _ = try await Cravey.run(["import", "--library", library, try await Fixture.audio().path])
        let exported = try await Cravey.run(["export", "--library", library, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(exported.output.utf8)) as? [String: Any])

        // Then every key it has is named by `export --help` and by the reference's JSON section
        let help = try await Cravey.run(["export", "--help"]).output
        let reference = try String(contentsOf: TestSoundServer.packageRoot.appendingPathComponent("docs/reference.md"), encoding: .utf8)
        let section = reference.components(separatedBy: "\n## JSON\n").dropFirst().first?.components(separatedBy: "\n## ").first ?? ""
        #expect(Set(document.keys) == ["exportDate", "recordings", "version"])
        for key in document.keys {
            #expect(help.contains(key), "export --help does not name \(key)")
            #expect(section.contains("`\(key)`"), "docs/reference.md's JSON section does not name \(key)")
        }
    }
}
