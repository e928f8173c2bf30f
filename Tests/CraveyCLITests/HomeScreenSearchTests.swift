import CraveyKit
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCore

/// The home screen's `/` filter finding a word said, in a real terminal (tmux).
@Suite("The home screen's filter finds words said, in a terminal", .temporaryFiles)
struct HomeScreenSearchTests {
    @Test("/ and the start of a word said in a clip lists it, with when it is said and the word marked; a title's accent is folded")
    func spokenWordShown() async throws {
        // Given two clips, one with words said ("lighthouse" from 2.5 s)
        let library = try await Fixture.library(titles: ["Évening", "Harbour"])
        let harbour = try #require(try library.recordings().first { $0.title == "Harbour" })
        let words = ["we", "watched", "the", "lighthouse", "turn"].enumerated().map { index, word in
            Transcript.Word(start: 0.5 + Double(index) * 0.7, end: 1.1 + Double(index) * 0.7, text: word)
        }
        try library.store.write { tx in
            _ = try tx.store(Transcript(language: "en", words: words).data, as: .transcript, of: ClipFiles(harbour))
        }
        let terminal = try await HomeScreenTests.home(library)

        // When the start of the word is typed as the filter
        try await terminal.type("/", "l", "i", "g", "h", "t")

        // Then the clip is listed with the time and the word marked
        try await HomeScreenTests.shows(terminal, "[lighthouse]")
        let found = await terminal.screen
        #expect(HomeScreenTests.listed(found) == ["Harbour"], "\(found)")
        #expect(found.contains("0:02 “") && found.contains("1 of 2 clips"), "\(found)")

        // And an accented title is found without its accent
        try await terminal.type("C-u", "e", "v", "e")
        try await HomeScreenTests.shows(terminal, "filter: eve")
        let folded = await terminal.screen
        #expect(HomeScreenTests.listed(folded) == ["Évening"], "\(folded)")
        try await terminal.type("Escape", "q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }
}
