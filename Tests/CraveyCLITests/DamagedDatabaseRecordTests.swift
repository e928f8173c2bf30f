import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// A recording whose database refuses its row keeps its words (a trigger set by sqlite3, a clip
/// recorded by `cravey record` from the test server's source). (A damaged or lost database in
/// process: CraveyCommandsTests' DamagedDatabaseTests.)
@Suite("A damaged database, recording", .temporaryFiles)
struct DamagedDatabaseRecordTests {
    @Test("a recording whose row cannot be written after its file took its name keeps its words: the repair registers it with its title, not as Recovered")
    func rowRefusedAfterRename() async throws {
        // Given a library whose database refuses every new clip (a trigger, as a failing
        // database would, when the file is already in place)
        let library = try await Fixture.library(titles: ["Why I stopped", "Breathe", "Day 30"]).url
        let database = library.appendingPathComponent("library.sqlite").path
        let refuse = try await run("sqlite3", [database, "CREATE TRIGGER refuse BEFORE INSERT ON recording BEGIN SELECT RAISE(ABORT, 'no room'); END;"])
        try #require(refuse.status == 0, "\(refuse.error)")

        // When a clip is recorded with words
        let recorded = try await Cravey.run(["record", "--seconds", "1", "--title", "Words kept", "--notes", "and notes",
                                             "--library", library.path])

        // Then it says the file is saved without its entry; once the database takes rows again,
        // the repair registers it with its title and notes
        #expect(recorded.status == 73 && recorded.error.contains("saved to"), "\(recorded.error)")
        _ = try await run("sqlite3", [database, "DROP TRIGGER refuse;"])
        let repair = try await Cravey.run(["doctor", "--repair", "--library", library.path])
        #expect(repair.status == 0 && repair.output.contains("as \"Words kept\"") && repair.output.contains("from its own copy"),
                "\(repair.output)")
        let clip = try #require(try RecordingLibrary(at: library).recordings().first { $0.title == "Words kept" })
        #expect(clip.notes == "and notes")
    }
}
