import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCore
@testable import CraveyKit
@testable import CraveyTerminal

/// The home screen's `/` filter over the word index, without a terminal: words said match too,
/// accents folded, the row shows where, and Enter plays from the word.
@Suite("The home screen's filter finds words said", .temporaryFiles)
struct HomeSearchTests {
    /// Four clips; "Breathe" has words said, "about my sister" from 4.5 s.
    static func library() async throws -> (RecordingLibrary, Recording) {
        let library = try await Fixture.library(titles: ["Breathe", "Café au lait", "Walk it off", "Morning"])
        let breathe = try #require(try library.recordings().first { $0.title == "Breathe" })
        let words = "so today we spoke about my sister at the harbour".split(separator: " ").enumerated().map { index, word in
            Transcript.Word(start: 0.5 + Double(index), end: 1.2 + Double(index), text: String(word))
        }
        try library.store.write { tx in
            _ = try tx.store(Transcript(language: "en", words: words).data, as: .transcript, of: ClipFiles(breathe))
        }
        return (library, breathe)
    }

    @Test("/ and a word said in a clip lists it, its row showing when it is said and the words around it marked; Enter plays from that word")
    func spokenWord() async throws {
        let (library, breathe) = try await Self.library()
        var home = try HomeDriver(library)

        // When a word said in "Breathe" is typed as the filter, a prefix of it
        home.type("/SIST")

        // Then the clip is listed, its row showing the time and the word marked
        #expect(home.listed == ["Breathe"])
        let row = try #require(home.lines[home.state.view.layout.list].first { $0.contains("Breathe") })
        #expect(row.contains("0:06") && row.contains("[sister]"), "\(row)")

        // And Enter (the filter kept), then Enter again, plays it from the word
        home.press(.enter)
        #expect(home.press(.enter) == [.play(breathe, counted: true, speed: 1, from: 6.5)])
    }

    @Test("a paste or a key past the longest filter is not taken, and says so; the filter typed so far stays and still lists")
    func longFilter() async throws {
        let (library, _) = try await Self.library()
        var home = try HomeDriver(library)
        home.type("/sist")
        #expect(home.listed == ["Breathe"])

        // When a page of text is pasted into the filter
        home.press(.paste(String(repeating: "sister ", count: 8_000)))

        // Then it is not taken, and the message says the limit
        #expect(home.message == "A filter is at most \(RecordingLibrary.maxFilterLength) characters: the rest was not taken.")
        #expect(home.listed == ["Breathe"])

        // And a filter typed up to the limit takes no key past it
        let upTo = String(repeating: "s", count: RecordingLibrary.maxFilterLength - 4)
        home.press(.paste(upTo))
        home.press(.character("s"))
        #expect(home.state.list.typedFilter.count == RecordingLibrary.maxFilterLength)
        home.press(.character("s"))
        #expect(home.state.list.typedFilter.count == RecordingLibrary.maxFilterLength)
        #expect(home.message?.hasPrefix("A filter is at most") == true)
    }

    @Test("accents are folded in the filter (cafe finds Café); a title's match shows no words and plays from the start")
    func accentsAndTitles() async throws {
        let (library, _) = try await Self.library()
        var home = try HomeDriver(library)
        home.type("/cafe")
        #expect(home.listed == ["Café au lait"])
        home.press(.enter)
        let cafe = try #require(home.selected)
        #expect(home.press(.enter) == [.play(cafe, counted: true, speed: 1)])

        // A word in a title and one said in another clip: each clip by its own
        home.press(.escape)
        home.type("/harb")
        #expect(home.listed == ["Breathe"])
        home.press(.control("u"))
        home.type("walk")
        #expect(home.listed == ["Walk it off"])
        #expect(home.state.list.page.matches.isEmpty)
    }
}
