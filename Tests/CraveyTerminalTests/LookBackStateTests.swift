@testable import CraveyKit
import Foundation
import Testing
@testable import CraveyTerminal

/// `cravey record`'s look back as a value: keys and what the plays, questions and changes ended
/// with in, the effects asked for and the lines printed out, without a terminal or a library.
@Suite("cravey record's look back, without a terminal")
struct LookBackStateTests {
    static let created = Date(timeIntervalSince1970: 1_790_000_000)

    /// A 10 s clip, titled `title` (nil: the automatic title), with a flat waveform.
    static func clip(_ title: String? = "Walk", duration: Double = 10) -> Recording {
        Recording(type: .audio, title: title ?? RecordingMetadata.automaticTitle(for: created), createdAt: created, duration: duration,
                  filePath: "Recordings/audio_x.m4a", fileSize: 1)
    }

    static let waveform = Waveform(sampleRate: 100, samplesPerPeak: 10, peaks: Array(repeating: Waveform.Peak(min: -8000, max: 8000), count: 100))

    static func lookBack(_ recording: Recording = clip(), proposed: String? = nil, waveform: Waveform? = nil) -> LookBackState {
        LookBackState(recording: recording, waveform: waveform, proposedTitle: proposed, width: 20)
    }

    @Test("Enter and Escape keep the clip as it stands (Escape as the home screen's look back has it); a key it does not know does nothing")
    func keep() {
        var lookBack = Self.lookBack()
        #expect(Array(lookBack.apply(.key(.enter)).prefix(2)) == [.say("Kept \"Walk\"."), .keep])
        #expect(Array(lookBack.apply(.key(.escape)).prefix(2)) == [.say("Kept \"Walk\"."), .keep])
        #expect(lookBack.apply(.key(.character("z"))).isEmpty && lookBack.apply(.key(.up)).isEmpty)
    }

    @Test("p plays it back; i and o pressed while it played set the part to keep, shown with the cut drawn as dots")
    func playBackMarks() {
        var lookBack = Self.lookBack(waveform: Self.waveform)
        #expect(lookBack.apply(.key(.character("p"))) == [.playBack, .show(.keys)])
        #expect(lookBack.apply(.playedBack(at: 0, marks: [(true, 2.5), (false, 7.5)])) == [.show(.cut)])
        #expect(lookBack.keptSpan == (2.5, 7.5))
        let lines = lookBack.lines(.cut)
        // 20 columns of a 10 s clip: 0.5 s a column, so 5 cut at each end.
        let kept = Array(Self.waveform.sparkline(width: 20))[5..<15]
        #expect(lines == ["·····" + String(kept) + "·····", "Keep 0:02.500-0:07.500 of 0:10.000 (x cuts, [ ] hear its ends)."], "\(lines)")
    }

    @Test("i and o outside a play take where the last play back stopped, clamped to the clip")
    func marksAtThePosition() {
        var lookBack = Self.lookBack()
        _ = lookBack.apply(.playedBack(at: 4, marks: []))
        #expect(lookBack.apply(.key(.character("i"))) == [.show(.cut), .show(.keys)])
        #expect(lookBack.keptSpan == (4, 10) && lookBack.position == 4)
        _ = lookBack.apply(.playedBack(at: 12, marks: [(false, 12)]))
        #expect(lookBack.keptSpan == (4, 10))
        // A play back that failed leaves the position as it was.
        _ = lookBack.apply(.playedBack(at: nil, marks: []))
        #expect(lookBack.position == 12)
    }

    @Test("an end set before the start is said, and nothing can be heard or cut until they are set again")
    func endBeforeStart() {
        var lookBack = Self.lookBack()
        _ = lookBack.apply(.playedBack(at: 0, marks: [(true, 8), (false, 3)]))
        #expect(lookBack.lines(.cut) == ["The end (0:03.000) is before the start (0:08.000): set them again."])
        #expect(lookBack.apply(.key(.character("["))) == [.say("Set the start before the end first."), .show(.keys)])
    }

    @Test("[ and ] hear the first and last 3 s of the part kept, or less of a shorter part")
    func hearTheEnds() {
        var lookBack = Self.lookBack()
        _ = lookBack.apply(.playedBack(at: 0, marks: [(true, 2), (false, 8)]))
        #expect(lookBack.apply(.key(.character("["))).first == .hear(from: 2, to: 5, first: true))
        #expect(lookBack.apply(.key(.character("]"))).first == .hear(from: 5, to: 8, first: false))
        _ = lookBack.apply(.playedBack(at: 0, marks: [(false, 4)]))
        #expect(lookBack.apply(.key(.character("]"))).first == .hear(from: 2, to: 4, first: false))
    }

    @Test("x with nothing set says how to set it; with a part set, it asks to cut to it")
    func cut() {
        var lookBack = Self.lookBack()
        #expect(lookBack.apply(.key(.character("x"))).first == .say("Nothing set to cut: set the start and the end with i and o while it plays, or a."))
        _ = lookBack.apply(.playedBack(at: 0, marks: [(false, 6)]))
        #expect(lookBack.apply(.key(.character("x"))) == [.cutTo(start: 0, end: 6), .show(.keys)])
    }

    @Test("a proposes the part from the waveform; the proposal sets both ends and is said and shown, and none is said as none")
    func propose() {
        var lookBack = Self.lookBack()
        #expect(lookBack.apply(.key(.character("a"))) == [.proposeCut, .show(.keys)])
        let effects = lookBack.apply(.proposed(TrimProposal(start: 1.25, end: 9, noiseFloor: -60, threshold: -48)))
        #expect(effects.last == .show(.cut))
        #expect(effects.first == .say("Proposed from the waveform: sound above -48 dBFS (12 dB over its noise floor, at least -70, at most halfway to its loudest peak), 150 ms kept on each side."))
        #expect(lookBack.keptSpan == (1.25, 9) && lookBack.cutSet)
        var silent = Self.lookBack()
        #expect(silent.apply(.proposed(nil)) == [.say("No sound above the clip's own noise: nothing to propose.")])
        #expect(!silent.cutSet)
    }

    @Test("a clip cut is shown again from its start, the part to keep set anew; a clean-up kept keeps the play position")
    func shaped() {
        var lookBack = Self.lookBack()
        _ = lookBack.apply(.playedBack(at: 5, marks: [(true, 2)]))
        let trimmed = Self.clip(duration: 6)
        #expect(lookBack.apply(.shaped(trimmed, waveform: nil, trimmed: true)) == [.say("Trimmed \"Walk\": 0:10.000 -> 0:06.000."), .show(.header)])
        #expect(lookBack.recording.duration == 6 && lookBack.keptSpan == (0, 6) && lookBack.position == 0)
        _ = lookBack.apply(.playedBack(at: 3, marks: [(true, 1)]))
        _ = lookBack.apply(.shaped(trimmed, waveform: nil, trimmed: false))
        #expect(lookBack.position == 3 && lookBack.keptSpan == (0, 6))
    }

    @Test("t, n and u ask for the word with what it now is; an untitled clip with words is offered the title they make")
    func askWords() {
        var untitled = Self.lookBack(Self.clip(nil), proposed: "Morning walk")
        let automatic = RecordingMetadata.automaticTitle(for: Self.created)
        #expect(untitled.apply(.key(.character("t"))).first == .ask(.title, current: automatic, proposed: "Morning walk"))
        #expect(untitled.lines(.header).contains("Its first words make a title: \"Morning walk\" (t, then Enter, takes it)."))
        var titled = untitled
        _ = titled.apply(.edited(Self.clip("Walk")))
        #expect(titled.apply(.key(.character("t"))).first == .ask(.title, current: "Walk", proposed: nil))
        #expect(!titled.lines(.header).contains { $0.hasPrefix("Its first words") })
        #expect(titled.apply(.key(.character("n"))).first == .ask(.notes, current: "", proposed: nil))
        #expect(titled.apply(.key(.character("u"))).first == .ask(.purpose, current: "", proposed: nil))
        #expect(titled.apply(.key(.character("d"))) == [.discard, .show(.keys)])
    }

    @Test("the header is the title and length, the waveform across the width asked, and the keys lines from the key table")
    func header() {
        let lookBack = Self.lookBack(waveform: Self.waveform)
        let lines = lookBack.lines(.header)
        #expect(lines.first == "\"Walk\" · 0:10")
        #expect(lines.count == 4 && lines[1].count == 20)
        #expect(Array(lines.suffix(2)) == [Preview.keys, Preview.shapeKeys])
        #expect(Preview.keys == "p play · t title · n notes · u purpose · d discard · Enter keep")
    }
}
