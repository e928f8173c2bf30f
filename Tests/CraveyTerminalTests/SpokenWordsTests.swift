import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit
@testable import CraveyTerminal

/// The words as they are said, without a terminal: which sentence and word at a time, fitted to
/// a width (``SpokenLine``), and the home screen's player line, details and look back with a
/// clip's transcript, on real SQLite libraries.
@Suite("The words as a clip plays, without a terminal", .temporaryFiles)
struct SpokenWordsTests {
    /// "Good morning." from 0.5 s, a pause, then "Seven boats came in before midnight." from 3 s.
    static let transcript = Transcript(language: "en", words: [
        .init(start: 0.5, end: 0.8, text: "Good"), .init(start: 0.8, end: 1.3, text: "morning."),
        .init(start: 3.0, end: 3.4, text: "Seven"), .init(start: 3.4, end: 3.8, text: "boats"), .init(start: 3.8, end: 4.0, text: "came"),
        .init(start: 4.0, end: 4.2, text: "in"), .init(start: 4.2, end: 4.6, text: "before"), .init(start: 4.6, end: 5.2, text: "midnight."),
    ])

    /// Stores `transcript` as `recording`'s, as `cravey transcribe` stores one.
    static func store(_ transcript: Transcript, of recording: Recording, in library: RecordingLibrary) throws {
        _ = try library.store.write { tx in try tx.store(transcript.data, as: .transcript, of: ClipFiles(recording)) }
    }

    @Test("the sentence and word said at a time: none before the first word, the word from its start to the next's, the sentence and its last word kept through a short pause, none after a long one")
    func sentenceAndWordAtATime() {
        let line = SpokenLine(Self.transcript)
        #expect(line.at(0.2) == nil)
        #expect(line.at(0.5)?.sentence == 0 && line.at(0.5)?.word == 0)
        #expect(line.at(1.0)?.word == 1)
        // After "morning." ends, the sentence stays, its last word marked, until the next begins.
        #expect(line.at(2.0)?.sentence == 0 && line.at(2.0)?.word == 1)
        #expect(line.at(3.5)?.sentence == 1 && line.at(3.5)?.word == 1)
        #expect(line.at(5.0)?.word == 5)
        #expect(line.at(5.2 + SpokenLine.lingering + 0.1) == nil)
        #expect(SpokenLine(Transcript(language: "", words: [])).at(1) == nil)
    }

    @Test("the word said is marked in reverse video, in brackets, or not at all; the sentence fits the width a part at a time, the part holding the word said")
    func fittedAndMarked() {
        // Widths as the player measures them: the C library's, in UTF-8.
        setlocale(LC_CTYPE, "C.UTF-8")
        let line = SpokenLine(Self.transcript)
        #expect(line.text(at: 3.5, width: 80, marking: .brackets) == "Seven [boats] came in before midnight.")
        #expect(line.text(at: 3.5, width: 80, marking: .reverse) == "Seven \u{1B}[7mboats\u{1B}[27m came in before midnight.")
        #expect(line.text(at: 3.5, width: 80, marking: .none) == "Seven boats came in before midnight.")
        #expect(line.text(at: 0.1, width: 80, marking: .brackets) == "")
        // 20 columns: "Seven [boats] came …" then "…in before …" then "…[midnight.]"
        let parts = [3.1, 3.5, 3.9, 4.1, 4.3, 4.7].map { line.text(at: $0, width: 20, marking: .brackets) }
        #expect(parts == ["[Seven] boats came …", "Seven [boats] came …", "Seven boats [came] …",
                          "…[in] before …", "…in [before] …", "…[midnight.]"], "\(parts)")
        for (time, text) in zip([3.1, 3.5, 3.9, 4.1, 4.3, 4.7], parts) {
            #expect(TerminalScreen.width(of: text) <= 20, "\(time): \(text)")
        }
        // A word wider than the line alone is cut; a line of 2 columns or fewer shows nothing.
        let long = SpokenLine(Transcript(language: "en", words: [.init(start: 0, end: 1, text: "Supercalifragilistic")]))
        #expect(long.text(at: 0.5, width: 8, marking: .brackets) == "Superca…")
        #expect(line.text(at: 3.5, width: 2, marking: .brackets) == "")
        // Wide characters count as two columns.
        let wide = SpokenLine(Transcript(language: "ja", words: [.init(start: 0, end: 1, text: "東京"), .init(start: 1, end: 2, text: "大阪")]))
        #expect(wide.text(at: 1.5, width: 8, marking: .brackets) == "…[大阪]")
    }

    @Test("the first words of a transcript make a proposed title: the first sentence, at most as long as a title, cut where a word ends, without its punctuation")
    func proposedTitle() {
        #expect(Self.transcript.proposedTitle == "Good morning")
        let long = Transcript(language: "en", words: "so I walked down to the harbour and watched the boats come in".split(separator: " ").enumerated().map {
            Transcript.Word(start: Double($0.offset), end: Double($0.offset) + 0.5, text: String($0.element))
        })
        let title = long.proposedTitle
        #expect(title == "so I walked down to the harbour and", "\(title ?? "")")
        #expect((title?.count ?? 99) <= RecordingMetadata.maxTitleLength)
        #expect(Transcript(language: "", words: []).proposedTitle == nil)
    }

    @Test("the home screen: the details show the words said; the player line shows the sentence being said with its word marked, in place of the title")
    func homeScreen() async throws {
        let library = try await HomeBrowsingTests.fiveClips()
        let morning = try #require(try library.recordings().first { $0.title == "Morning" })
        try Self.store(Self.transcript, of: morning, in: library)
        var home = try HomeDriver(library)
        #expect(home.lines[20].hasPrefix(" said: “Good morning. Seven boats came in before midnight.”"), "\(home.lines[20])")
        #expect(home.press(.enter) == [.play(morning, counted: true, speed: 1)])
        home.send(.playStarted(morning, duration: 6, HomeMediaTests.event(at: 3.5), counted: true, videoProblem: nil))
        // 80 columns leave 27 for the words: the part that holds the word said.
        #expect(home.playerLine.hasSuffix("1.0x  Seven boats came in …"), "\(home.playerLine)")
        #expect(!home.playerLine.contains("Morning"))
        // The word said is drawn selected (reverse video): the frame's pieces say so.
        let marked = HomeFrame.draw(home.state).pieces.filter { $0.row == home.state.view.layout.player && $0.style == .selected }
        #expect(marked.map(\.text) == ["boats"], "\(marked)")
        // Between sentences long after one, the title again.
        home.send(.played(PlaybackEvent(state: .playing, position: 0.1, duration: 6, speed: 1)))
        #expect(home.playerLine.hasSuffix("Morning"), "\(home.playerLine)")
    }

    @Test("the home screen's look back: a recording given no title is transcribed once saved, and its t is filled in with the title its first words make")
    func lookBackProposesTitle() async throws {
        // A clip saved with the automatic title, as the home screen's r saves one.
        let library = try await Fixture.library(titles: [RecordingMetadata.automaticTitle(for: Date(timeIntervalSince1970: 1_790_000_000))])
        let clip = try #require(try library.recordings().first)
        var home = try HomeDriver(library)
        #expect(home.send(.recordingSaved(.success(clip))) == [.transcribe(clip)])
        home.send(.transcribed(clip, Self.transcript))
        #expect(home.message == "Heard 8 words in \"\(clip.title)\". t proposes \"Good morning\" as its title.", "\(home.message ?? "")")
        home.press(.character("t"))
        #expect(home.status.hasSuffix(": Good morning"), "\(home.status)")
        #expect(home.press(.enter) == [.edit(library.version(of: clip), [HomeEffect.Answer(field: 0, text: "Good morning")])])
    }
}
