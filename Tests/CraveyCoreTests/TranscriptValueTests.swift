@testable import CraveyCore
import Foundation
import Testing

/// A transcript as values: what its file may hold (a language cravey knows, times a clip can
/// have, a size every reader takes), and its words fitted to a clip's length.
@Suite("Transcript values: what a words file may hold, and words fitted to their clip")
struct TranscriptValueTests {
    /// The bytes of a transcript with `language` and one word from `start` to `end`.
    func file(language: String = "fr", start: String = "0.25", end: String = "0.75") -> Data {
        Data(#"{"language":"\#(language)","words":[{"end":\#(end),"start":\#(start),"text":"Bonjour"}]}"#.utf8)
    }

    @Test("a language that is not a code cravey knows (an escape sequence, 100 KB, a made-up code) makes the file no transcript; a known one or none does")
    func languages() throws {
        // Given files whose only fault is their language
        for bad in [#"fr\u001b]0;owned\u0007"#, String(repeating: "q", count: 100_000), "xx", "FR", #"\u009b31m"#] {
            // Then none is a transcript
            #expect(Transcript(data: file(language: bad)) == nil, "\(bad.prefix(20))")
        }
        // And a code of Whisper's, or none (nothing said), is
        #expect(Transcript(data: file(language: "cy"))?.language == "cy")
        #expect(Transcript(data: file(language: ""))?.words.count == 1)
        #expect(Transcript(language: "\u{1B}[2J", words: []).isWellFormed == false)
    }

    @Test("a time past what a clip can last (1e300 s, 11 days and more) makes the file no transcript; 10 days does not")
    func farTimes() throws {
        #expect(Transcript(data: file(start: "1e300", end: "1e300")) == nil)
        #expect(Transcript(data: file(start: "0.5", end: "1e300")) == nil)
        #expect(Transcript(data: file(start: "0.5", end: "1000000.5")) == nil)
        #expect(Transcript(data: file(start: "864000", end: "864000.5"))?.words.first?.end == 864_000.5)
    }

    @Test("a transcript whose file would be larger than every reader takes is not storable; its words are well-formed all the same")
    func tooLarge() throws {
        let long = Transcript(language: "de", words: [.init(start: 0, end: 1, text: String(repeating: "ä", count: Transcript.largestFile / 2 + 7))])
        #expect(long.isWellFormed && !long.isStorable)
        #expect(Transcript(data: long.data) == nil)
        let short = Transcript(language: "de", words: [.init(start: 0, end: 1, text: "Guten")])
        #expect(short.isStorable && Transcript(data: short.data) == short)
    }

    @Test("words fitted to a clip: a word from its end on is dropped, one still said there ends there, the rest are kept as heard")
    func within() throws {
        let heard = Transcript(language: "it", words: [
            .init(start: 0.1, end: 0.6, text: "Buona"), .init(start: 0.6, end: 2.35, text: "sera"),
            .init(start: 2.2, end: 2.3, text: "a"), .init(start: 2.3, end: 2.9, text: "tutti."),
        ])
        let fitted = heard.within(2.3)
        #expect(fitted.words.map(\.text) == ["Buona", "sera", "a"])
        #expect(fitted.words[0] == heard.words[0] && fitted.words[1].end == 2.3 && fitted.words[2] == heard.words[2])
        #expect(fitted.language == "it")
    }

    @Test("a backup's words for a clip: a word starting more than a second past its end refuses them; one within that is fitted to the clip")
    func restored() throws {
        let words = Transcript(language: "es", words: [.init(start: 0.2, end: 0.9, text: "Hola"), .init(start: 3.4, end: 3.8, text: "amigos")])
        #expect(words.restored(for: 2.3) == nil)
        let fitted = try #require(words.restored(for: 2.6))
        #expect(fitted.words == [words.words[0]])
        #expect(words.restored(for: 4) == words)
    }

    @Test("sentences corrected from lines with CRLF ends, or a last line without one, are the same as from LF lines")
    func lineEnds() throws {
        let heard = Transcript(language: "en", words: [
            .init(start: 0.3, end: 0.7, text: "Tide"), .init(start: 0.7, end: 1.1, text: "turns."),
            .init(start: 2.5, end: 2.9, text: "Gulls"), .init(start: 2.9, end: 3.3, text: "call."),
            .init(start: 5.0, end: 5.6, text: "Nets"), .init(start: 5.6, end: 6.0, text: "dry."),
        ])
        let edited = "Tide turns.\nGulls cry.\nNets dry.\n"
        let expected = try #require(heard.corrected(Transcript.lines(of: edited)))
        // "\r\n" is one Character: dropping the last drops the whole line end.
        for text in [edited.replacingOccurrences(of: "\n", with: "\r\n"), String(edited.dropLast()),
                     String(edited.replacingOccurrences(of: "\n", with: "\r\n").dropLast())] {
            let lines = Transcript.lines(of: text)
            #expect(lines.count == 3, "\(text.debugDescription)")
            #expect(heard.corrected(lines) == expected, "\(text.debugDescription)")
        }
        // A line separator a word holds is no line end
        #expect(Transcript.lines(of: "Tide\u{2028}turns.\r\nGulls cry.\r\n") == ["Tide\u{2028}turns.", "Gulls cry."])
    }
}
