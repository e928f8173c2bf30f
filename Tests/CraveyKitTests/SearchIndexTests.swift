import CraveyTestSupport
import Foundation
import GRDB
import Testing
@testable import CraveyCore
@testable import CraveyKit

/// The word index as the library's other paths keep it: a backup restored into another library
/// is searched by its words again, a trim moves their times, and doctor finds an index out of
/// step, which `--repair` makes again.
@Suite("The search index through backup, trim and repair", .temporaryFiles)
struct SearchIndexTests {
    static let words = Transcript(language: "en", words: [
        Transcript.Word(start: 0.1, end: 0.2, text: "Quiet"), Transcript.Word(start: 0.25, end: 0.4, text: "lighthouse."),
    ])

    /// A library of one real clip (half a second of sound) whose transcript is ``words``.
    func spokenLibrary() async throws -> (RecordingLibrary, Recording) {
        let library = try await Fixture.library(titles: ["Evening"])
        let recording = try #require(try library.recordings().first)
        try library.store.write { tx in _ = try tx.store(Self.words.data, as: .transcript, of: ClipFiles(recording)) }
        return (library, recording)
    }

    @Test("a backup restored into a new library is searched by its words again, at their times")
    func backupRestore() async throws {
        let (library, recording) = try await spokenLibrary()
        #expect(try library.search("lighthouse").first?.at == 0.25)
        let backup = temporaryFolder().appendingPathComponent("words.tar")
        let restoredURL = temporaryFolder().appendingPathComponent("restored")
        try await offPool {
            _ = try library.archive.backup(to: backup)
            _ = try RecordingLibrary(at: restoredURL).archive.restore(from: backup)
        }
        let restored = try RecordingLibrary(at: restoredURL)
        let match = try #require(try restored.search("lighthouse").first)
        #expect(match.recording.id == recording.id && match.at == 0.25 && match.field == "words")
        #expect(try await restored.examine().isHealthy)
    }

    @Test("a trim that keeps every word moves them in the index too: search gives the time in the trimmed clip, and doctor finds the library healthy")
    func trimKeepingEveryWord() async throws {
        let (library, recording) = try await spokenLibrary()
        #expect(try library.search("lighthouse").first?.at == 0.25)
        let trimmed = try await library.trim(recording, from: 0.05, to: recording.duration)
        let moved = try #require(library.transcripts.transcript(of: trimmed))
        #expect(moved.words.map(\.text) == Self.words.words.map(\.text) && abs(moved.words[1].start - 0.2) < 1e-9)
        #expect(try library.search("lighthouse").first?.at == 0.2)
        let report = try await library.examine()
        #expect(report.isHealthy, "\(report.problems)")
    }

    @Test("doctor finds an index dropped or out of step, and --repair makes it again from the rows and transcripts")
    func repairRemakes() async throws {
        let (library, recording) = try await spokenLibrary()
        #expect(try await library.examine().isHealthy)

        // A word index row changed behind cravey's back: out of step
        try library.store.write { tx in try tx.db.execute(sql: "UPDATE clipSearch SET words = 'stale'") }
        let stale = try await library.examine()
        #expect(!stale.findings(.searchIndexOutOfStep).isEmpty && !stale.isHealthy && stale.problems.contains { $0.hasPrefix("search index out of step") })
        #expect(try library.search("lighthouse").isEmpty)
        let repaired = try await library.repair()
        #expect(repaired.repairs.contains { $0.contains("search index") }, "\(repaired.repairs)")
        #expect(try library.search("lighthouse").first?.recording.id == recording.id)
        #expect(try await library.examine().isHealthy)

        // The index gone: made again whole, its triggers too (an edit is found at once after)
        try library.store.write { tx in
            try tx.db.execute(sql: "DROP TABLE clipSearch")
        }
        #expect(!(try await library.examine().findings(.searchIndexOutOfStep).isEmpty))
        _ = try await library.repair()
        #expect(try library.search("lighthouse").first?.at == 0.25)
        _ = try library.edit(recording.id) { $0.title = "Harbour night" }
        #expect(try library.search("harbour").first?.recording.id == recording.id)
        #expect(try library.search("evening").isEmpty)
    }
}
