import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit
@testable import CraveyTerminal

/// The home screen's player line and recorder without a terminal: the play's and recording's
/// events in, the keys they give, the effects and the lines drawn out, on real SQLite libraries.
@Suite("The home screen's player and recorder, without a terminal", .temporaryFiles)
struct HomeMediaTests {
    static func event(_ state: PlaybackState = .playing, at position: Double, speed: Double = 1) -> PlaybackEvent {
        PlaybackEvent(state: state, position: position, duration: 0.5, speed: speed)
    }

    /// A screen playing the selected clip ("Morning"), started.
    static func playing() async throws -> (HomeDriver, Recording) {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        let morning = try #require(home.selected)
        #expect(home.press(.enter) == [.play(morning, counted: true, speed: 1)])
        home.send(.playStarted(morning, duration: 0.5, event(at: 0.1), counted: true, videoProblem: nil))
        return (home, morning)
    }

    @Test("a play started shows the player line (mark, position, bar, length, speed, title) and the player's keys on the status line")
    func playerLine() async throws {
        let (home, _) = try await Self.playing()
        #expect(home.playerLine.hasPrefix(" ▶ ") && home.playerLine.contains("[") && home.playerLine.hasSuffix("1.0x  Morning"))
        // q quit does not fit in 80 columns
        #expect(home.status == "space pause · ←/→ 15 s · 0-9 jump · [ ] speed · ⌫ 1x · Esc stop · ? help")
    }

    @Test("while a clip plays, its keys are the player's as the table says: space, the arrows, digits, [ ], Backspace, Escape")
    func playerKeys() async throws {
        var (home, _) = try await Self.playing()
        #expect(home.press(.character(" ")) == [.player(.togglePause)])
        #expect(home.press(.left, .right) == [.player(.skip(-15)), .player(.skip(15))])
        #expect(home.press(.character("5")) == [.player(.seek(fraction: 0.5))])
        #expect(home.press(.character("]"), .character("[")) == [.player(.changeSpeed(by: 0.1)), .player(.changeSpeed(by: -0.1))])
        #expect(home.press(.backspace) == [.player(.resetSpeed)])
        #expect(home.press(.escape) == [.player(.stop)])
        // The list's keys still move
        home.press(.character("j"))
        #expect(home.selected?.title == "Call Sam")
    }

    @Test("a click on the bar goes to that point of the clip; a click elsewhere on the player line does nothing")
    func clickOnBar() async throws {
        var (home, _) = try await Self.playing()
        let bar = try #require(HomeFrame.playerBar(home.state))
        #expect(bar.count == ProgressLine.width)
        let row = home.state.view.layout.player
        #expect(home.press(.click(row: row, column: bar.lowerBound + 15)) == [.player(.seek(fraction: 0.5))])
        #expect(home.press(.click(row: row, column: 0)).isEmpty)
    }

    @Test("the play's progress moves the line and keeps the speed for the next play; its end is said, counted, and the list read again")
    func progressAndEnd() async throws {
        var (home, morning) = try await Self.playing()
        home.send(.played(Self.event(at: 0.3, speed: 1.5)))
        #expect(home.playerLine.contains("1.5x"))
        home.send(.playEnded(morning, .success(PlaybackSummary(secondsListened: 0.5, completed: true, position: 0.5, recording: nil, counted: true)),
                             current: true))
        #expect(home.message == "Played \"Morning\" to the end (counted: 0 plays).")
        #expect(home.playerLine.isEmpty)
        #expect(home.press(.enter) == [.play(morning, counted: true, speed: 1.5)])
    }

    @Test("q while a clip plays stops it; the screen ends once the play has ended")
    func quitWhilePlaying() async throws {
        var (home, morning) = try await Self.playing()
        #expect(home.press(.character("q")) == [.player(.stop)])
        #expect(home.state.quitting && !home.state.finished)
        home.send(.playEnded(morning, .failure(CraveyError(.other, "stopped")), current: true))
        #expect(home.state.finished)
    }

    @Test("another Enter while a play starts stops nothing twice and starts nothing more")
    func oneStartAtATime() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        #expect(home.press(.enter).count == 1)
        #expect(home.press(.character("j"), .enter).isEmpty)
    }

    /// A screen recording, started, in `library`.
    static func recording(_ library: RecordingLibrary) throws -> HomeDriver {
        var home = try HomeDriver(library)
        #expect(home.press(.character("r")) == [.record(video: false)])
        home.send(.recordingStarting(.success(library)))
        #expect(home.playerLine == " ● saving…")
        home.send(.recordingStarted)
        return home
    }

    @Test("r records: the player line says it starts, then shows the meter; the status line gives the recorder's keys")
    func recordingLine() async throws {
        var home = try Self.recording(try await HomeBrowsingTests.fiveClips())
        #expect(home.playerLine == " ● starting to record…")
        #expect(home.status == "space pause · Enter or s stop and save · q save and quit · m mark · ? help")
        home.send(.recorded(.level(AudioLevel(rms: -20, peak: -6, elapsed: 1.5)), paused: false))
        #expect(home.playerLine.hasPrefix(" ●") && home.playerLine.contains("0:01"))
    }

    @Test("while recording, space pauses, Enter and s stop and save, and the keys that start other work are refused")
    func recorderKeys() async throws {
        var home = try Self.recording(try await HomeBrowsingTests.fiveClips())
        #expect(home.press(.character(" ")) == [.pauseRecording])
        #expect(home.press(.enter) == [.stopRecording])
        #expect(home.press(.character("s")) == [.stopRecording])
        for key in ["r", "R", "e", "d", "/", "1", "2", "3"] {
            #expect(home.press(.character(Character(key))).isEmpty)
            #expect(home.message == "A recording is under way: Enter or s stops and saves it first.", "\(key)")
        }
        // The list still moves
        home.press(.character("j"))
        #expect(home.selected?.title == "Call Sam")
        #expect(home.press(.character("q")) == [.stopRecording])
        #expect(home.state.quitting && !home.state.finished)
    }

    @Test("m while a clip plays marks the moment; the keys after it are its label's (a paste is text) until Enter keeps it; , and . go to the previous and next marker; the bar shows them")
    func markWhilePlaying() async throws {
        // Given a minute-long clip playing at 10 s
        var (home, morning) = try await Self.playing()
        let minute = { (position: Double) in PlaybackEvent(state: .playing, position: position, duration: 60, speed: 1) }
        home.send(.played(minute(10)))

        // When m is pressed, a label typed (a space, q and a paste in it) and Enter pressed
        #expect(home.press(.character("m")) == [.mark(morning.id, ClipMarker(milliseconds: 10_000, label: nil))])
        #expect(home.playerLine.contains("◆ 0:10 label: ▏"), "\(home.playerLine)")
        // Its key is in the table: the status line shows it where there is room, and ? always
        #expect(KeyTable.labels(.playing).contains("m mark") && KeyTable.help(width: 200).joined().contains(", . the previous, next marker"))
        #expect(home.type("to q").isEmpty && home.press(.backspace, .paste("quit")).isEmpty)
        #expect(home.playerLine.contains("label: to quit▏"))
        #expect(home.press(.enter) == [.mark(morning.id, ClipMarker(milliseconds: 10_000, label: "to quit"))])

        // Then the keys are the player's again; a second marker at 30 s, left without a label
        #expect(home.press(.character("5")) == [.player(.seek(fraction: 0.5))])
        home.send(.played(minute(30)))
        #expect(home.press(.character("m"), .escape) == [.mark(morning.id, ClipMarker(milliseconds: 30_000, label: nil))])
        #expect(home.state.media.playing?.markers.markers == [ClipMarker(milliseconds: 10_000, label: "to quit"), ClipMarker(milliseconds: 30_000, label: nil)])
        #expect(home.playerLine.filter { $0 == "◆" }.count == 2)

        // , and . go to the previous and next marker; , just after one goes to the one before
        let at10: Double = 10.0 / 60, at30: Double = 30.0 / 60
        home.send(.played(minute(20)))
        #expect(home.press(.character(".")) == [.player(.seek(fraction: at30))])
        #expect(home.press(.character(",")) == [.player(.seek(fraction: at10))])
        home.send(.played(minute(30.5)))
        #expect(home.press(.character(",")) == [.player(.seek(fraction: at10))])
        #expect(home.press(.character(".")).isEmpty)
        home.send(.played(minute(5)))
        #expect(home.press(.character(",")) == [.player(.seek(fraction: 0))])
        // A line break pasted into a label is refused: the paste is not taken
        home.press(.character("m"))
        #expect(home.press(.paste("two\nlines")).isEmpty && home.message?.contains("the paste was not taken") == true)
    }

    @Test("m while recording marks the moment the meter shows, its label typed after (space is the label's then); the recorder keeps them for the clip it saves")
    func markWhileRecording() async throws {
        var home = try Self.recording(try await HomeBrowsingTests.fiveClips())
        home.send(.recorded(.level(AudioLevel(rms: -20, peak: -6, elapsed: 1.5)), paused: false))
        #expect(home.press(.character("m")).isEmpty)
        #expect(home.press(.character(" ")).isEmpty && home.type("go").isEmpty)
        #expect(home.playerLine.contains("◆ 0:02 label:  go▏"), "\(home.playerLine)")
        #expect(home.press(.enter).isEmpty)
        #expect(home.state.media.capture?.markers.finished == [ClipMarker(milliseconds: 1500, label: "go")])
        #expect(home.playerLine.contains("◆ 1"), "\(home.playerLine)")
        // Space pauses again once the label is kept
        #expect(home.press(.character(" ")) == [.pauseRecording])
    }

    @Test("a recording saved opens its look back: the player line says it is saved, the status line gives the look back's keys, the clip is selected")
    func lookBack() async throws {
        let library = try await HomeBrowsingTests.fiveClips()
        var home = try Self.recording(library)
        let walk = try #require(try library.recordings().first { $0.title == "Walk it off" })
        home.send(.recordingSaved(.success(walk)))
        #expect(home.playerLine.hasPrefix(" Saved \"Walk it off\" · ") && home.playerLine.hasSuffix(": keep it, or change it first."))
        #expect(home.status.hasPrefix("p play · t title · n notes · u purpose · d discard"))
        #expect(home.selected?.id == walk.id)
        #expect(home.press(.character("p")) == [.play(walk, counted: false, speed: 1)])
    }

    @Test("the look back's d asks, and y discards the clip as it was shown; t asks its title and Enter changes that word alone")
    func lookBackChanges() async throws {
        let library = try await HomeBrowsingTests.fiveClips()
        var home = try Self.recording(library)
        let walk = try #require(try library.recordings().first { $0.title == "Walk it off" })
        home.send(.recordingSaved(.success(walk)))
        home.press(.character("d"))
        #expect(home.status == "Discard recording? This cannot be undone. [y/N]")
        #expect(home.press(.character("y")) == [.remove(library.version(of: walk), .discard)])
        home.press(.character("t"))
        #expect(home.status.hasSuffix("): Walk it off"))
        #expect(home.type("!") + home.press(.enter) == [.edit(library.version(of: walk), [HomeEffect.Answer(field: 0, text: "Walk it off!")])])
    }

    @Test("Enter keeps the clip looked back at; another key closes the look back and is the list's")
    func lookBackKept() async throws {
        let library = try await HomeBrowsingTests.fiveClips()
        var home = try Self.recording(library)
        let walk = try #require(try library.recordings().first { $0.title == "Walk it off" })
        home.send(.recordingSaved(.success(walk)))
        #expect(home.press(.enter).isEmpty)
        #expect(home.message == "Kept \"Walk it off\"." && home.state.media.lookBack == nil)
        home.send(.recordingSaved(.success(walk)))
        home.press(.character("j"))
        #expect(home.state.media.lookBack == nil && home.selected?.title == "Breathe")
    }

    @Test("an edit done is said, the spaces removed at the ends named, and the look back shows the clip as it now is")
    func edited() async throws {
        let library = try await HomeBrowsingTests.fiveClips()
        var home = try Self.recording(library)
        let walk = try #require(try library.recordings().first { $0.title == "Walk it off" })
        home.send(.recordingSaved(.success(walk)))
        var renamed = walk
        renamed.title = "Walk"
        home.send(.edited(renamed, trimmed: ["title"]))
        #expect(home.message == "Updated \"Walk\" (the spaces at the ends of the title were removed).")
        #expect(home.state.media.lookBack?.recording.title == "Walk")
    }

    @Test("a recording saved while quitting opens no look back, and the screen ends")
    func savedWhileQuitting() async throws {
        let library = try await HomeBrowsingTests.fiveClips()
        var home = try Self.recording(library)
        home.press(.character("q"))
        let walk = try #require(try library.recordings().first { $0.title == "Walk it off" })
        home.send(.recordingSaved(.success(walk)))
        #expect(home.state.media.lookBack == nil && home.state.finished)
    }
}
