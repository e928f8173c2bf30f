@testable import CraveyKit
import Testing
@testable import CraveyTerminal

/// `cravey play`'s player as a value: keys and progress in, the effects asked for and the line
/// drawn out, without a terminal or a playback.
@Suite("cravey play's player, without a terminal")
struct PlayerStateTests {
    /// A player of a 30 s clip drawing its bar (no waveform, no colour), quiet from 2 s to 5 s.
    static func player(view: PlayerState.View? = nil, markers: [ClipMarker] = [], skipping: Bool = false) -> PlayerState {
        PlayerState(view: view ?? .bar(ProgressLine(duration: 30, waveform: nil, colour: false)), markers: markers,
                    silence: SilenceSkip(spans: [2..<5], isOn: skipping), spoken: nil, columns: 120)
    }

    static func at(_ position: Double, _ state: PlaybackState = .playing) -> PlayerState.Event {
        .progress(PlaybackEvent(state: state, position: position, duration: 30, speed: 1))
    }

    @Test("the keys line is the table's player keys; full screen only with a window, the click only with a bar")
    func keysLine() {
        #expect(PlayerState.keys(window: false, bar: true)
            == "space pause · ←/→ 15 s · 0-9 jump · click the bar · [ ] speed · z skip silence · m mark · , . marks · q stop")
        #expect(PlayerState.keys(window: true, bar: true).hasSuffix("q stop · f full screen"))
        #expect(!PlayerState.keys(window: false, bar: false).contains("click the bar"))
    }

    @Test("the player's keys ask the playback for what `cravey play` always did: pause, skip, jump, speed, stop")
    func keysGiveCommands() {
        var player = Self.player()
        let expected: [(Key, PlayerCommand)] = [
            (.character(" "), .togglePause), (.right, .skip(15)), (.left, .skip(-15)), (.character("5"), .seek(fraction: 0.5)),
            (.character("0"), .seek(fraction: 0)), (.home, .seek(fraction: 0)), (.end, .seek(fraction: 1)),
            (.character("["), .changeSpeed(by: -0.1)), (.character("]"), .changeSpeed(by: 0.1)), (.backspace, .resetSpeed),
            (.character("q"), .stop), (.character("Q"), .stop), (.escape, .stop), (.character("f"), .toggleFullScreen),
        ]
        for (key, command) in expected { #expect(player.apply(.key(key)) == [.perform(command)], "\(key)") }
        #expect(player.apply(.key(.character("x"))).isEmpty && player.apply(.key(.up)).isEmpty)
    }

    @Test("a click on the bar goes to that point of the clip; a click beside it, or without a bar, does nothing")
    func clickOnTheBar() {
        var player = Self.player()
        let line = ProgressLine(duration: 30, waveform: nil, colour: false)
        // The bar's first column, counted from 1, is a click's column (from 0) plus one.
        #expect(player.apply(.key(.click(row: 3, column: line.barStart - 1 + 15))) == [.perform(.seek(fraction: 0.5))])
        #expect(player.apply(.key(.click(row: 3, column: 0))).isEmpty)
        var plain = Self.player(view: .lines)
        #expect(plain.apply(.key(.click(row: 3, column: line.barStart - 1 + 15))).isEmpty)
    }

    @Test("m marks the moment last reported, stored at once; the keys after it are its label's until Enter stores it with the label")
    func markAndLabel() {
        var player = Self.player()
        _ = player.apply(Self.at(3.25))
        #expect(player.apply(.key(.character("m"))) == [.store(ClipMarker(milliseconds: 3250, label: nil))])
        // Space is the label's now, not a pause.
        for key: Key in [.character("h"), .character(" "), .character("i")] { #expect(player.apply(.key(key)).isEmpty) }
        #expect(player.frame?.contains("◆ 0:03 label: h i▏") == true, "\(player.frame ?? "")")
        _ = player.apply(.key(.backspace))
        #expect(player.apply(.key(.enter)) == [.store(ClipMarker(milliseconds: 3250, label: "h"))])
        #expect(player.apply(.key(.character(" "))) == [.perform(.togglePause)])
        #expect(player.markers.markers == [ClipMarker(milliseconds: 3250, label: "h")])
    }

    @Test("Escape while a label is typed leaves the marker without one and stops nothing")
    func escapeLeavesTheLabel() {
        var player = Self.player()
        _ = player.apply(.key(.character("m")))
        _ = player.apply(.key(.character("x")))
        #expect(player.apply(.key(.escape)).isEmpty)
        #expect(player.markers.labelling == nil && player.markers.markers == [ClipMarker(milliseconds: 0, label: nil)])
        #expect(player.apply(.key(.escape)) == [.perform(.stop)])
    }

    @Test(", and . go to the previous and next marker; , before the first goes to the start; . after the last does nothing")
    func markerJumps() {
        var player = Self.player(markers: [ClipMarker(milliseconds: 5000, label: nil), ClipMarker(milliseconds: 20_000, label: "b")])
        _ = player.apply(Self.at(10))
        #expect(player.apply(.key(.character("."))) == [.seek(20)])
        #expect(player.apply(.key(.character(","))) == [.seek(5)])
        _ = player.apply(Self.at(4))
        #expect(player.apply(.key(.character(","))) == [.seek(0)])
        _ = player.apply(Self.at(25))
        #expect(player.apply(.key(.character("."))).isEmpty)
    }

    @Test("z turns skipping silence on: a play inside a quiet stretch jumps to its end, and the line says how much was saved")
    func skipSilence() {
        var player = Self.player()
        #expect(player.apply(Self.at(2.5)).isEmpty)
        #expect(player.apply(.key(.character("z"))).isEmpty)
        #expect(player.apply(Self.at(2)) == [.seek(5)])
        #expect(player.silence.skipped == 3)
        #expect(player.frame?.contains("skipping silence, 0:03 saved") == true, "\(player.frame ?? "")")
        _ = player.apply(.key(.character("Z")))
        #expect(player.frame?.contains("silence kept, 0:03 saved") == true)
        // Paused in a quiet stretch: no jump.
        var skipping = Self.player(skipping: true)
        #expect(skipping.apply(Self.at(3, .paused)).isEmpty)
    }

    @Test("the frame is the bar's line: ▶ and the position playing, ❚❚ paused, the markers as ◆, a marker not kept said")
    func frame() {
        var player = Self.player(markers: [ClipMarker(milliseconds: 15_000, label: nil)])
        #expect(player.frame == nil)
        _ = player.apply(Self.at(6))
        let playing = player.frame ?? ""
        #expect(playing.contains("▶ ") && playing.contains("0:06 [") && playing.contains("] 0:30") && playing.contains("◆"), "\(playing)")
        _ = player.apply(Self.at(6, .paused))
        #expect(player.frame?.contains("❚❚") == true)
        _ = player.apply(.stored(problem: "marker not kept: the disk is full"))
        #expect(player.frame?.hasSuffix(" · marker not kept: the disk is full") == true)
    }

    @Test("on a terminal that only prints lines, a pause and a resume are each said once, and no frame is drawn")
    func plainLines() {
        var player = Self.player(view: .lines)
        #expect(player.apply(Self.at(1)).isEmpty)
        #expect(player.apply(Self.at(4, .paused)) == [.say("Paused at 0:04.")])
        #expect(player.apply(Self.at(4, .paused)).isEmpty)
        #expect(player.apply(Self.at(4)) == [.say("Playing from 0:04.")])
        #expect(player.frame == nil)
        var silent = Self.player(view: PlayerState.View.none)
        #expect(silent.apply(Self.at(4, .paused)).isEmpty && silent.frame == nil)
        // A pause before the play's first event (space typed at once: the streams saw it) is said too.
        var early = Self.player(view: .lines)
        #expect(early.apply(Self.at(0, .paused)) == [.say("Paused at 0:00.")])
        #expect(early.apply(Self.at(0)) == [.say("Playing from 0:00.")])
    }

    @Test("a video's window has the player's keys through the table: no marker, silence or list key there")
    func windowKeys() {
        #expect(KeyTable.windowCommand(.character(" ")) == .togglePause)
        #expect(KeyTable.windowCommand(.character("7")) == .seek(fraction: 0.7))
        #expect(KeyTable.windowCommand(.character("q")) == .stop && KeyTable.windowCommand(.escape) == .stop)
        #expect(KeyTable.windowCommand(.character("F")) == .toggleFullScreen && KeyTable.windowCommand(.end) == .seek(fraction: 1))
        #expect(KeyTable.windowCommand(.character("m")) == nil && KeyTable.windowCommand(.character("z")) == nil)
    }

    @Test("the key reader reads Enter, Tab and control characters as the home screen does, and the other arrows and pages")
    func keyReaderKeys() {
        #expect(KeyReader.key(startingAt: [0x0D])! == (.enter, 1) && KeyReader.key(startingAt: [0x0A])! == (.enter, 1))
        #expect(KeyReader.key(startingAt: [0x09])! == (.tab, 1) && KeyReader.key(startingAt: [0x15])! == (.control("u"), 1))
        let bytes = { (text: String) in Array(text.utf8) }
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[A"))! == (.up, 3) && KeyReader.key(startingAt: bytes("\u{1B}OB"))! == (.down, 3))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[5~"))! == (.pageUp, 4) && KeyReader.key(startingAt: bytes("\u{1B}[6~"))! == (.pageDown, 4))
        // A character's UTF-8 is read whole: its first byte waits for the rest
        #expect(KeyReader.key(startingAt: [0xC3]) == nil && KeyReader.key(startingAt: [0xC3, 0xA9])! == (.character("é"), 2))
    }
}
