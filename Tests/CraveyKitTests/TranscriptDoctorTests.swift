import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCore
@testable import CraveyKit

/// doctor and `--repair` on a clip's words that cannot be trusted: a file no reader takes, or
/// words said past the clip's end.
@Suite("doctor on a clip's words", .temporaryFiles)
struct TranscriptDoctorTests {
    /// A library of one clip (half a second) whose words file holds `bytes`, put there as the
    /// store writes any (an older cravey, a hand, a restore from before restores checked them).
    func library(holding bytes: Data) async throws -> (RecordingLibrary, Recording) {
        try await Fixture.clip("Pier", words: bytes)
    }

    @Test("words said seconds past the clip's end are reported, and a repair cuts them to its length, keeping the rest")
    func wordsPastTheEnd() async throws {
        let words = Transcript(language: "pt", words: [.init(start: 0.1, end: 0.3, text: "Olá"), .init(start: 4.5, end: 5, text: "mar.")])
        let (library, clip) = try await library(holding: words.data)
        let report = try await library.examine()
        #expect(!report.isHealthy && report.findings(.untrustedTranscript).compactMap(\.id) == [clip.id], "\(report.problems)")
        #expect(report.problems.contains { $0.hasPrefix("words not the clip's") })

        let repaired = try await library.repair()
        #expect(repaired.repairs.contains { $0.contains("Cut the words of \"Pier\"") }, "\(repaired.repairs)")
        #expect(library.transcripts.transcript(of: clip)?.words == [words.words[0]])
        #expect(try library.search("mar").isEmpty)
        #expect(try await library.examine().isHealthy)
    }

    @Test("a words file no reader takes (a language holding an escape, a time of 1e300 s) is reported, and a repair deletes it; words a little past the end are no fault")
    func unreadableWords() async throws {
        for bad in [#"{"language":"pt\u001b[2J","words":[{"end":0.3,"start":0.1,"text":"Olá"}]}"#,
                    #"{"language":"pt","words":[{"end":1e300,"start":1e300,"text":"Olá"}]}"#] {
            let (library, clip) = try await library(holding: Data(bad.utf8))
            let report = try await library.examine()
            #expect(!report.isHealthy && report.findings(.untrustedTranscript).compactMap(\.id) == [clip.id], "\(bad): \(report.problems)")
            let repaired = try await library.repair()
            #expect(repaired.repairs.contains { $0.hasPrefix("Deleted \(ClipFiles(clip).file(.transcript)!.path)") }, "\(repaired.repairs)")
            #expect(library.store.status(of: ClipFiles(clip).file(.transcript)!) == .missing)
            #expect(try await library.examine().isHealthy)
        }
        let near = Transcript(language: "pt", words: [.init(start: 0.3, end: 0.8, text: "Olá")])
        let (library, _) = try await library(holding: near.data)
        #expect(try await library.examine().isHealthy)
    }
}
