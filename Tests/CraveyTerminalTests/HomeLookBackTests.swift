import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit
@testable import CraveyTerminal

/// The home screen's look back after `r`, without a terminal: `cravey record`'s own
/// (``LookBackState``), its keys and what the plays and changes end with in, the effects and the
/// lines drawn out, on real SQLite libraries.
@Suite("The home screen's look back, without a terminal", .temporaryFiles)
struct HomeLookBackTests {
    /// A screen whose recording was just saved as "Walk it off" (0.5 s), its look back open.
    static func lookingBack() async throws -> (HomeDriver, Recording, RecordingLibrary) {
        let library = try await HomeBrowsingTests.fiveClips()
        var home = try HomeMediaTests.recording(library)
        let walk = try #require(try library.recordings().first { $0.title == "Walk it off" })
        home.send(.recordingSaved(.success(walk)))
        return (home, walk, library)
    }

    static func event(at position: Double) -> PlaybackEvent {
        PlaybackEvent(state: .playing, position: position, duration: 0.5, speed: 1)
    }

    @Test("the look back shows the keys that shape the clip under its details, the key table's as cravey record's look back prints them")
    func shapingKeysShown() async throws {
        let (home, _, _) = try await Self.lookingBack()
        let rows = home.lines[home.state.view.layout.details].suffix(2)
        #expect(rows.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " · ") == Preview.shapeKeys, "\(home.screen)")
    }

    @Test("? in the look back shows its keys first, the shaping keys with them, then the list's, all at 80x24; any key closes it and the look back is still open")
    func helpWhileLookingBack() async throws {
        var (home, walk, _) = try await Self.lookingBack()
        home.press(.character("?"))
        let screen = home.screen
        for binding in KeyTable.bindings where [.lookBack, .shaping, .browsing].contains(binding.context) {
            #expect(screen.contains("\(binding.name) \(binding.help)"), "\(binding.name) is not in the help:\n\(screen)")
        }
        let headings = [KeyBinding.Context.lookBack, .shaping, .browsing].map { screen.range(of: $0.heading)?.lowerBound }
        #expect(headings.allSatisfy { $0 != nil } && headings == headings.sorted { $0! < $1! }, "\(screen)")
        #expect(!screen.contains(KeyBinding.Context.recording.heading))
        #expect(home.press(.character("z")).isEmpty)
        #expect(home.state.media.lookBack?.recording.id == walk.id && !home.screen.contains("Keys of the home screen"))
    }

    @Test("i and o set the part to keep where the play back is; it is drawn with the cut as dots; x asks to cut to it and y cuts, the play stopped")
    func setAndCut() async throws {
        var (home, walk, library) = try await Self.lookingBack()
        #expect(home.press(.character("p")) == [.play(walk, counted: false, speed: 1)])
        home.send(.playStarted(walk, duration: 0.5, Self.event(at: 0), counted: false, videoProblem: nil))
        home.send(.played(Self.event(at: 0.1)))
        // i is the look back's while it plays; space is still the player's
        #expect(home.press(.character("i")).isEmpty)
        #expect(home.press(.character(" ")) == [.player(.togglePause)])
        home.send(.played(Self.event(at: 0.4)))
        #expect(home.press(.character("o")).isEmpty)
        #expect(home.screen.contains("Keep 0:00.100-0:00.400 of 0:00.500 (x cuts, [ ] hear its ends)."), "\(home.screen)")
        home.press(.character("x"))
        #expect(home.status == "Cut to 0:00.100-0:00.400 of 0:00.500? The cut parts cannot be recovered. [y/N]")
        let asked = library.version(of: walk)
        #expect(home.press(.character("y")) == [.player(.stop), .cut(asked, start: 0.1, end: 0.4)])
        var trimmed = walk
        trimmed.duration = 0.3
        home.send(.cut(from: walk, to: trimmed))
        #expect(home.message == "Trimmed \"Walk it off\": 0:00.500 -> 0:00.300.")
        #expect(home.state.media.lookBack?.recording.duration == 0.3 && home.state.media.lookBack?.cutSet == false)
    }

    @Test("x with nothing set says how to set it; n at x's question cuts nothing; the look back stays open")
    func nothingToCut() async throws {
        var (home, walk, _) = try await Self.lookingBack()
        #expect(home.press(.character("x")).isEmpty)
        #expect(home.message == "Nothing set to cut: set the start and the end with i and o while it plays, or a.")
        home.send(.playEnded(walk, .success(PlaybackSummary(secondsListened: 0.2, completed: false, position: 0.2, recording: nil)), current: true))
        home.press(.character("o"))
        home.press(.character("x"))
        #expect(home.press(.character("n")).isEmpty && home.message == "Nothing was cut.")
        #expect(home.state.media.lookBack.map { $0.keptSpan == (0, 0.2) } == true)
    }

    @Test("a proposes the part to keep from the waveform, said and set (no question yet); [ and ] hear its ends on the player line, stopped at the end of them")
    func proposeAndHear() async throws {
        var (home, walk, library) = try await Self.lookingBack()
        let asked = library.version(of: walk)
        #expect(home.press(.character("a")) == [.proposeCut(asked, lookBack: true)])
        home.send(.cutProposed(walk, asked, TrimProposal(start: 0.05, end: 0.45, noiseFloor: -60, threshold: -48), lookBack: true))
        #expect(home.message?.hasPrefix("Proposed from the waveform: sound above -48 dBFS") == true)
        #expect(home.state.dialog.mode.isBrowsing && home.state.media.lookBack.map { $0.keptSpan == (0.05, 0.45) } == true)
        #expect(home.press(.character("]")) == [.play(walk, counted: false, speed: 1, from: 0.05)])
        #expect(home.message == "Hearing 0:00.050-0:00.450 (the last 3 s kept): Esc stops.")
        home.send(.playStarted(walk, duration: 0.5, Self.event(at: 0.05), counted: false, videoProblem: nil))
        #expect(home.send(.played(Self.event(at: 0.2))).isEmpty)
        #expect(home.send(.played(Self.event(at: 0.44))) == [.player(.stop)])
        // A proposal of no sound is said, and sets nothing.
        home.send(.cutProposed(walk, asked, nil, lookBack: true))
        #expect(home.message == "No sound above the clip's own noise: nothing to propose.")
    }

    @Test("c cleans the noise beside the clip, compared on the status line with cravey clean's keys: p listens, a switches at the same moment, y keeps it")
    func cleanAndKeep() async throws {
        var (home, walk, library) = try await Self.lookingBack()
        #expect(home.press(.character("c")) == [.cleanNoise(library.version(of: walk))])
        #expect(home.message == "Cleaning the noise...")
        home.send(.noiseCleaned(figures: "Noise learnt from 0:00.000-0:00.125, the clip's quietest stretch.\nNoise floor: -50.0 dBFS before"))
        #expect(home.status == KeyTable.line(.cleanUp), "\(home.screen)")
        #expect(home.screen.contains("Noise learnt from 0:00.000-0:00.125") && home.screen.contains("Noise floor: -50.0 dBFS before"))
        #expect(home.press(.character("p")) == [.hearCleanUp(cleaned: true, from: 0)])
        home.send(.playStarted(walk, duration: 0.5, Self.event(at: 0), counted: false, videoProblem: nil))
        #expect(home.status.hasPrefix("B: after (cleaned); a switches to before"))
        home.send(.played(Self.event(at: 0.2)))
        #expect(home.press(.character(" ")) == [.player(.togglePause)])
        #expect(home.press(.character("a")) == [.player(.stop)])
        let stopped = PlaybackSummary(secondsListened: 0.2, completed: false, position: 0.2, recording: nil)
        #expect(home.send(.playEnded(walk, .success(stopped), current: true)) == [.hearCleanUp(cleaned: false, from: 0.2)])
        home.send(.playStarted(walk, duration: 0.5, Self.event(at: 0.2), counted: false, videoProblem: nil))
        #expect(home.status.hasPrefix("A: before; a switches to after (cleaned)"))
        // Any other key stops; then the question again, and y keeps the cleaned clip.
        #expect(home.press(.character("k")) == [.player(.stop)])
        home.send(.playEnded(walk, .success(stopped), current: true))
        #expect(home.status == KeyTable.line(.cleanUp))
        #expect(home.press(.character("y")) == [.settleCleanUp(keep: true)])
        #expect(home.state.dialog.mode.isBrowsing)
        home.send(.cleanUpKept(walk))
        #expect(home.message == "Kept the cleaned \"Walk it off\".")
        #expect(home.state.media.lookBack?.recording.id == walk.id)
    }

    @Test("a clean-up compared: n or Enter keeps the clip as it was, and quitting discards the clean-up")
    func cleanDeclined() async throws {
        var (home, _, _) = try await Self.lookingBack()
        home.press(.character("c"))
        home.send(.noiseCleaned(figures: "Noise learnt"))
        #expect(home.press(.enter) == [.settleCleanUp(keep: false)])
        #expect(home.message == "Kept \"Walk it off\" as it was.")
        home.press(.character("c"))
        home.send(.noiseCleaned(figures: "Noise learnt"))
        #expect(home.press(.character("q")).isEmpty)
        #expect(home.send(.quit) == [.settleCleanUp(keep: false)] && home.state.finished)
    }
}

extension HomeMode {
    /// Whether nothing is asked or typed on the status line.
    var isBrowsing: Bool {
        if case .browsing = self { true } else { false }
    }
}
