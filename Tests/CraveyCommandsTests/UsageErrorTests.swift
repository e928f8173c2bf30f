import CraveyCore
import CraveyTestSupport
import Foundation
import Testing

/// What `cravey` refuses before it records, plays or writes anything: a value out of range, a
/// time in no form the help names, words no title, tag or marker takes. Checked in process
/// (``Outcome``): the exit code and the message are those the executables end with, without
/// starting them (they started `cravey` once each, 60-odd times a run).
@Suite("Command lines refused, in process", .temporaryFiles)
struct UsageErrorTests {
    @Test("record --seconds under 0.1, negative, NaN or infinite is refused as invalid input (64) at parsing, naming the range, on stderr",
          arguments: ["1e-9", "0.09", "0", "-1", "nan", "inf", "86401"])
    func recordSecondsOutOfRange(seconds: String) async throws {
        // When recording for a duration outside 0.1 s to 24 h
        let outcome = try await Outcome.of(["record", "--library", temporaryLibrary().path, "--seconds", seconds])

        // Then the line is refused before anything runs, and the error names the option and its range
        #expect(outcome.status == 64 && outcome.refusedAtParse && !outcome.toStandardOutput, "\(outcome)")
        #expect(outcome.text.contains("--seconds") && outcome.text.contains("0.1") && outcome.text.contains("86400"), "\(outcome)")
    }

    @Test("--size, --fps and --camera are checked: exit 64 at parsing, naming the option, so nothing is recorded",
          arguments: [(["--video", "--size", "1280x721"], "--size"), (["--video", "--size", "big"], "--size"),
                      (["--video", "--fps", "0"], "--fps"), (["--camera", "test"], "--video")])
    func videoOptions(arguments: [String], named option: String) async throws {
        let outcome = try await Outcome.of(["record", "--library", temporaryLibrary().path, "--seconds", "1"] + arguments)
        #expect(outcome.status == 64 && outcome.refusedAtParse, "\(outcome)")
        #expect(outcome.text.contains(option), "\(outcome)")
    }

    @Test("a time given to trim is only one of the help's forms: anything else is refused (64) at parsing, naming --start",
          arguments: ["0x1p1", "1e1", "1E0", "inf", "nan", "+1", " 1", "1 ", "-1", ".5", "1.", "0:60", "1:2:3:4", "0x10", "1_0",
                      "\u{0661}", "1,5", ""])
    func trimTimeForms(time: String) async throws {
        let outcome = try await Outcome.of(["trim", "0000dead", "--start", time, "--dry-run", "--library", temporaryLibrary().path])
        #expect(outcome.status == 64 && outcome.refusedAtParse && outcome.text.contains("--start"), "\(time.debugDescription): \(outcome)")
    }

    @Test("thumbnail --at -1 and pin to slot 4 are refused (64) at parsing; search --limit 0 too")
    func outOfRange() async throws {
        let library = temporaryLibrary().path
        for arguments in [["thumbnail", "0000dead", "--at", "-1"], ["pin", "0000dead", "4"], ["search", "walk", "--limit", "0"]] {
            let outcome = try await Outcome.of(arguments + ["--library", library])
            #expect(outcome.status == 64 && outcome.refusedAtParse, "\(arguments): \(outcome)")
        }
    }

    @Test("a bad search query exits 64 naming it and the way to write it, before anything is printed")
    func badQuery() async throws {
        let library = try await Fixture.library(titles: ["Café morning", "Evening walk"])
        for query in [["\"unclosed phrase"], [""], ["AND"]] {
            let outcome = try await Outcome.of(["search"] + query + ["--library", library.url.path])
            #expect(outcome.status == 64 && !outcome.toStandardOutput, "\(query): \(outcome)")
            #expect(outcome.text.contains("Cannot search for") && outcome.text.contains("\""), "\(outcome)")
        }
    }

    @Test("a 41-character title, or a control character in --title or --notes, exits 64 naming it (escaped) and changes nothing")
    func titlesAndNotes() async throws {
        let library = try await Fixture.library(titles: ["Breathe"])
        let recording = try #require(try library.recordings().first)
        let id = String(recording.id.description.prefix(8)), path = library.url.path

        let tooLong = try await Outcome.of(["edit", id, "--title", String(repeating: "x", count: 41), "--library", path])
        #expect(tooLong.status == 64, "\(tooLong)")
        let escaped = try await Outcome.of(["edit", id, "--title", "ab\u{1B}]0;pwned\u{07}", "--library", path])
        #expect(escaped.status == 64, "\(escaped)")
        #expect(escaped.text.contains("U+001B (ESC) at character 3") && !escaped.text.contains("\u{1B}"), "\(escaped)")
        let tabbed = try await Outcome.of(["edit", id, "--notes", "a\tb", "--library", path])
        #expect(tabbed.status == 64 && tabbed.text.contains("U+0009 (TAB) at character 2"), "\(tabbed)")
        #expect(try library.recordings() == [recording])
    }

    @Test("a bad tag exits 64 naming tags, and changes nothing; list --tag of two words is refused too")
    func tags() async throws {
        let library = try await Fixture.library(titles: ["Sister"])
        let before = try library.recordings()
        let id = String(before[0].id.description.prefix(8)), path = library.url.path
        for bad in ["+two words", "+a#b", "+\u{1B}[31m", "+" + String(repeating: "x", count: 31)] {
            let outcome = try await Outcome.of(["tag", id, "+ok", bad, "--library", path])
            #expect(outcome.status == 64 && outcome.text.contains("tag"), "\(bad.debugDescription): \(outcome)")
        }
        #expect(try await Outcome.of(["list", "--tag", "a b", "--library", path]).status == 64)
        #expect(try library.recordings() == before)
    }

    @Test("a bad label, a time past the end of the clip or before it, a number no marker has, a label without a time or --add with --remove exit 64 and change nothing; an unknown id 66")
    func markers() async throws {
        // Given a clip of 0.5 s
        let library = try await Fixture.library(titles: ["Talk"])
        let before = try library.recordings()
        let id = String(before[0].id.description.prefix(8)), path = library.url.path
        for bad in [["--add", "0.2", "--label", "bell\u{07}"], ["--add", "0.2", "--label", "\u{1B}[31mred"],
                    ["--add", "0.2", "--label", String(repeating: "x", count: 41)], ["--add", "0.6"], ["--add", "-1"],
                    ["--remove", "3"], ["--remove", "0"], ["--label", "no time"], ["--add", "0.1", "--remove", "1"]] {
            let outcome = try await Outcome.of(["markers", id] + bad + ["--library", path])
            #expect(outcome.status == 64, "\(bad): \(outcome)")
        }
        #expect(try library.recordings() == before)
        #expect(try await Outcome.of(["markers", "0000dead", "--library", path]).status == 66)
    }

    @Test("a refusal quotes at most a line of what it was given: a title, a purpose or an id as long as the kernel lets an argument be (128 KiB) ending in a character no title takes is refused (64) in a few hundred bytes, nothing changed")
    func refusalsQuoteALine() async throws {
        let library = try await Fixture.library(titles: ["Short"])
        let clip = try #require(try library.recordings().first)
        let longest = 128 * 1024 - 2, path = library.url.path
        let titles = [String(repeating: "a", count: longest - 1) + "\u{1B}",
                      String(repeating: "\u{E9}", count: longest / 2 - 2) + "\u{07}",
                      "b" + String(repeating: "\u{301}", count: longest / 2 - 2) + "\u{9B}"]
        var refused: [(String, Outcome)] = []
        for title in titles {
            refused.append(("edit --title of \(title.utf8.count) bytes", try await Outcome.of(["edit", clip.id.description, "--title", title, "--library", path])))
        }
        let word = String(repeating: "z", count: longest)
        refused.append(("edit --purpose", try await Outcome.of(["edit", clip.id.description, "--purpose", word, "--library", path])))
        refused.append(("info ID", try await Outcome.of(["info", word, "--library", path])))
        for (what, outcome) in refused {
            #expect(outcome.status == 64, "\(what): \(outcome)")
            #expect(outcome.text.utf8.count < 600, "\(what): \(outcome.text.utf8.count) bytes: \(outcome)")
        }
        #expect(try library.recordings() == [clip])
    }
}
