import Foundation
import Testing
@testable import CraveyKit

@Suite("Titles, notes and purposes")
struct RecordingMetadataTests {
    @Test("a title of 40 characters is kept; 41 is an invalid-input error, not a cut")
    func titleLimit() throws {
        #expect(try RecordingMetadata(title: String(repeating: "a", count: 40)).title?.count == 40)
        expectError(.invalidInput) { _ = try RecordingMetadata(title: String(repeating: "a", count: 41)) }
        do {
            _ = try RecordingMetadata(title: String(repeating: "a", count: 41))
        } catch {
            #expect(error.kind == .invalidInput)
            #expect(error.message.contains("41") && error.message.contains("40"))
        }
    }

    @Test("length is counted as a person counts: a family emoji is one character")
    func countsCharacters() throws {
        let family = "👨‍👩‍👧‍👦"
        #expect(try RecordingMetadata(title: String(repeating: family, count: 40)).title?.count == 40)
        expectError(.invalidInput) { _ = try RecordingMetadata(title: String(repeating: family, count: 41)) }
    }

    @Test("notes allow 200 characters, not 201")
    func notesLimit() throws {
        #expect(try RecordingMetadata(notes: String(repeating: "n", count: 200)).notes?.count == 200)
        expectError(.invalidInput) { _ = try RecordingMetadata(notes: String(repeating: "n", count: 201)) }
    }

    @Test("a blank title becomes 'Recording <date>' in local time")
    func automaticTitle() throws {
        let metadata = try RecordingMetadata(title: "   ")
        let date = ISO8601DateFormatter().date(from: "2026-11-22T15:42:00Z")!
        #expect(metadata.resolvedTitle(createdAt: date, timeZone: TimeZone(identifier: "UTC")!)
                == "Recording Nov 22, 2026 3:42 PM")
        #expect(try RecordingMetadata(title: "Don't Do It").resolvedTitle(createdAt: date) == "Don't Do It")
    }

    @Test("control characters in a title are refused, naming the character and where it is")
    func titleControlCharacters() throws {
        for (title, named) in [("ab\u{1B}]0;pwned\u{07}", "U+001B (ESC) at character 3"), ("a\u{07}", "U+0007 (BEL) at character 2"),
                               ("x\u{9B}31m", "U+009B (CSI) at character 2"), ("tab\there", "U+0009 (TAB) at character 4"),
                               ("line\nbreak", "U+000A (LF) at character 5"), ("del\u{7F}", "U+007F (DEL) at character 4"),
                               ("  \u{1B}[31m", "U+001B (ESC) at character 3")] {
            do {
                _ = try RecordingMetadata(title: title)
                Issue.record("\(title.debugDescription) was accepted")
            } catch {
                #expect(error.kind == .invalidInput)
                #expect(error.message.contains(named), "\(error.message)")
                #expect(error.message.contains("Remove it"), "\(error.message)")
            }
        }
        // Around the title, whitespace is still trimmed as before.
        #expect(try RecordingMetadata(title: "\tBreathe\n").title == "Breathe")
    }

    @Test("notes may hold line breaks, and no other control character")
    func notesControlCharacters() throws {
        #expect(try RecordingMetadata(notes: "one\ntwo\n\nthree").notes == "one\ntwo\n\nthree")
        for (notes, named) in [("ok\u{1B}[2J", "U+001B (ESC) at character 3"), ("a\tb", "U+0009 (TAB) at character 2"),
                               ("one\r\ntwo", "U+000D (CR) at character 4"), ("a\u{85}b", "U+0085 (NEL) at character 2")] {
            do {
                _ = try RecordingMetadata(notes: notes)
                Issue.record("\(notes.debugDescription) was accepted")
            } catch {
                #expect(error.kind == .invalidInput)
                #expect(error.message.contains("notes") && error.message.contains(named), "\(error.message)")
            }
        }
    }

    @Test("purposes: the four names, none, or an error listing them")
    func purposes() throws {
        #expect(try RecordingMetadata.purpose(named: "Craving") == .craving)
        #expect(try RecordingMetadata.purpose(named: "none") == nil)
        expectError(.invalidInput) { _ = try RecordingMetadata.purpose(named: "anger") }
    }
}

@Suite("Level meter")
struct LevelMeterTests {
    @Test("full-scale square wave reads 0 dBFS; half amplitude about -6; silence the floor")
    func levels() {
        let full = AudioLevel.measure([Int16](repeating: 32767, count: 480) + [Int16](repeating: -32767, count: 480), elapsed: 0)
        #expect(abs(full.rms) < 0.01 && abs(full.peak) < 0.01)
        let half = AudioLevel.measure([Int16](repeating: 16384, count: 960), elapsed: 0)
        #expect(abs(half.rms + 6.02) < 0.01)
        let silence = AudioLevel.measure([Int16](repeating: 0, count: 960), elapsed: 0)
        #expect(silence.rms == AudioLevel.floor && silence.peak == AudioLevel.floor)
    }

    @Test("the silence detector decides once, after its window")
    func silenceDetector() {
        var detector = SilenceDetector(window: 2, threshold: -60)
        let quiet = [1.0, 2, 3].map { detector.isSilent(after: AudioLevel(rms: -120, peak: -120, elapsed: $0)) }
        #expect(quiet == [false, true, false])
        var loud = SilenceDetector(window: 2, threshold: -60)
        let spoken = [(-20.0, 1.0), (-120, 2)].map { loud.isSilent(after: AudioLevel(rms: $0.0, peak: $0.0, elapsed: $0.1)) }
        #expect(spoken == [false, false])
    }
}
