import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit
@testable import CraveyTerminal

/// The home screen's keys that act, without a terminal: Quick Play, the help, the status line,
/// the prompts and the questions, and the effects they ask the shell for, on real SQLite
/// libraries.
@Suite("The home screen's actions, without a terminal", .temporaryFiles)
struct KeyActionsTests {
    /// Five clips (``HomeBrowsingTests/fiveClips()``), "Walk it off" played twice and "Breathe"
    /// once: Quick Play is those two, then another.
    static func played() async throws -> RecordingLibrary {
        let library = try await HomeBrowsingTests.fiveClips()
        try await offPool {
            let clips = try library.recordings()
            let walk = clips.first { $0.title == "Walk it off" }!, breathe = clips.first { $0.title == "Breathe" }!
            _ = try library.countPlay(of: walk)
            _ = try library.countPlay(of: walk)
            _ = try library.countPlay(of: breathe)
        }
        return library
    }

    @Test("1, 2 and 3 play Quick Play's clips, the most played first, counted, at the speed last chosen")
    func quickPlayKeys() async throws {
        var home = try HomeDriver(try await Self.played())
        let quickPlay = home.state.list.page.quickPlay
        #expect(quickPlay.map(\.title).prefix(2) == ["Walk it off", "Breathe"])
        #expect(home.lines[2].contains("1") && home.lines[2].contains("Walk it off") && home.lines[2].hasSuffix("2 plays"))
        #expect(home.press(.character("2")) == [.play(quickPlay[1], counted: true, speed: 1)])
        #expect(home.playerLine == " ▶ starting \"Breathe\"…")
    }

    @Test("a Quick Play key with no clip there says what Quick Play holds")
    func quickPlayEmpty() async throws {
        var home = try HomeDriver(try await Fixture.library())
        #expect(home.press(.character("1")).isEmpty)
        #expect(home.message == "Quick Play is empty: press r to record your first clip.")
        var two = try HomeDriver(try await Fixture.library(titles: ["A", "B"]))
        #expect(two.press(.character("3")).isEmpty)
        #expect(two.message == "Quick Play has 2 clips.")
    }

    @Test("? shows a help line for every key of the table, at 80x24; any key closes it and does nothing else")
    func helpListsTheTable() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        home.press(.character("?"))
        let screen = home.screen
        #expect(screen.contains("Keys of the home screen (any key closes this)"))
        for binding in KeyTable.bindings where KeyBinding.Context.home.contains(binding.context) {
            #expect(screen.contains("\(binding.name) \(binding.help)"), "\(binding.name) is not in the help:\n\(screen)")
        }
        for context in KeyBinding.Context.home { #expect(screen.contains(context.heading)) }
        // The look back's shaping keys show while it is open (``HomeLookBackTests``).
        #expect(!screen.contains(KeyBinding.Context.shaping.heading))
        #expect(home.press(.character("q")).isEmpty)
        #expect(!home.state.quitting && home.listed.count == 5)
    }

    @Test("every key a binding names does what the table says, in its context; the status line shows the table's labels")
    func tableDecides() {
        for binding in KeyTable.bindings {
            for (key, action) in binding.keys {
                #expect(KeyTable.action(for: key, in: binding.context) == action, "\(key) in \(binding.context)")
            }
        }
        #expect(KeyTable.labels(.browsing) == ["Enter play", "1-3 Quick Play", "r record", "e edit", "d delete", "/ filter", "s sort",
                                               "x cut silence", "t reminders", "q quit"])
        #expect(KeyTable.labels(.playing) == ["space pause", "←/→ 15 s", "0-9 jump", "[ ] speed", "⌫ 1x", "Esc stop", "m mark", ", . marks", "q quit"])
        #expect(KeyTable.labels(.recording) == ["space pause", "Enter or s stop and save", "q save and quit", "m mark"])
        #expect(KeyTable.labels(.lookBack) == ["p play", "t title", "n notes", "u purpose", "d discard", "Enter keep"])
    }

    @Test("the status line keeps as many of the table's keys as fit, then ? help: at 40 columns, two")
    func statusFits() async throws {
        let home = try HomeDriver(try await HomeBrowsingTests.fiveClips(), rows: 10, columns: 40)
        #expect(home.status == "Enter play · 1-3 Quick Play · ? help")
    }

    @Test("e asks the title, the notes, then the purpose, each filled in; Enter on the last asks for the change of the version shown")
    func editPrompts() async throws {
        let library = try await HomeBrowsingTests.fiveClips()
        var home = try HomeDriver(library)
        let morning = try #require(home.selected)
        home.press(.character("e"))
        #expect(home.status == "Title (at most \(RecordingMetadata.maxTitleLength) characters; empty: \"Recording <date>\"): Morning")
        #expect(home.frame.cursor?.column == home.status.count)
        home.type(" now")
        home.press(.enter)
        #expect(home.status.hasPrefix("Notes (at most"))
        home.type("n1")
        home.press(.enter)
        #expect(home.status == "Purpose (motivational, craving, reflection or milestone; empty: none):")
        let effects = home.type("craving") + home.press(.enter)
        #expect(effects == [.edit(library.version(of: morning), [HomeEffect.Answer(field: 0, text: "Morning now"),
                                                                HomeEffect.Answer(field: 1, text: "n1"),
                                                                HomeEffect.Answer(field: 2, text: "craving")])])
        #expect(home.status.hasPrefix("Enter play"))
    }

    @Test("in a prompt, Backspace, Ctrl-W and Ctrl-U take back a character, a word, the line; Escape changes nothing")
    func promptEdits() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        home.press(.character("e"))
        home.type(" walk")
        home.press(.backspace)
        #expect(home.status.hasSuffix("Morning wal"))
        home.press(.control("w"))
        #expect(home.status.hasSuffix("Morning"))
        home.press(.control("u"))
        #expect(home.status.hasSuffix("\"Recording <date>\"):"))
        #expect(home.press(.escape).isEmpty)
        #expect(home.message == "Nothing was changed.")
    }

    @Test("a paste holding a line break is refused in a prompt, and nothing is changed; a paste without one is typed")
    func promptPaste() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        home.press(.character("e"))
        home.press(.paste(" at dawn"))
        #expect(home.status.hasSuffix("Morning at dawn"))
        #expect(home.press(.paste("one\ntwo")).isEmpty)
        #expect(home.message == "A line break (pasted?) cannot go in the title: nothing was changed.")
        #expect(home.state.dialog.message?.warning == true)
        guard case .browsing = home.state.dialog.mode else { Issue.record("still typing"); return }
        #expect(home.effects.isEmpty)
    }

    @Test("an Enter with keys after it in a prompt (a paste without bracketed paste) refuses the line, naming the field")
    func pastedLineBreak() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        home.press(.character("e"))
        home.press(.enter)
        home.send(.pastedLineBreak)
        #expect(home.message == "A line break (pasted?) cannot go in the notes: nothing was changed.")
        #expect(home.effects.isEmpty)
    }

    @Test("d asks before deleting; y deletes the clip as the question showed it (its ClipVersion)")
    func deleteAsks() async throws {
        let library = try await HomeBrowsingTests.fiveClips()
        var home = try HomeDriver(library)
        let morning = try #require(home.selected)
        home.press(.character("d"))
        #expect(home.status == "Delete \"Morning\"? This cannot be undone. [y/N]")
        #expect(home.press(.character("y")) == [.remove(library.version(of: morning), .delete)])
    }

    @Test("a y read with the d, before the question was drawn, is no answer: the question stays")
    func typedAheadIsNoAnswer() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        #expect(home.press(.character("d"), .character("y")).isEmpty)
        #expect(home.status.hasPrefix("Delete \"Morning\"?"))
        #expect(home.press(.character("n")).isEmpty)
        #expect(home.message == "Kept \"Morning\".")
    }

    @Test("a paste is no answer to a question: it declines, as a warning")
    func pasteIsNoAnswer() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        home.press(.character("d"))
        #expect(home.press(.paste("y")).isEmpty)
        #expect(home.message == "Pasted text is no answer. Kept \"Morning\".")
        #expect(home.state.dialog.message?.warning == true)
    }

    @Test("deleting the clip that plays stops the play first")
    func deletePlaying() async throws {
        let library = try await HomeBrowsingTests.fiveClips()
        var home = try HomeDriver(library)
        let morning = try #require(home.selected)
        home.press(.enter)
        home.send(.playStarted(morning, duration: 0.5, PlaybackEvent(state: .playing, position: 0.1, duration: 0.5, speed: 1), counted: true,
                               videoProblem: nil))
        home.press(.character("d"))
        #expect(home.press(.character("y")) == [.player(.stop), .remove(library.version(of: morning), .delete)])
    }

    @Test("a delete done elsewhere is said and the list read again")
    func removed() async throws {
        let library = try await HomeBrowsingTests.fiveClips()
        var home = try HomeDriver(library)
        let morning = try #require(home.selected)
        let asked = library.version(of: morning)
        let deleted = try await offPool { try library.delete(morning.id, asked: asked) }
        home.send(.removed(deleted, said: "Deleted"))
        #expect(home.message == "Deleted \"Morning\".")
        #expect(home.listed == ["Call Sam", "Ten minutes", "Walk it off", "Breathe"])
        #expect(home.lines[0].hasSuffix("4 clips · ? help"))
    }

    @Test("x asks for the cut of the version shown; the proposal is a question, y cuts to it and says so")
    func cutAsks() async throws {
        let library = try await HomeBrowsingTests.fiveClips()
        var home = try HomeDriver(library)
        let morning = try #require(home.selected)
        let asked = library.version(of: morning)
        #expect(home.press(.character("x")) == [.proposeCut(asked, lookBack: false)])
        home.send(.cutProposed(morning, asked, TrimProposal(start: 0.1, end: 0.4, noiseFloor: -60, threshold: -45), lookBack: false))
        #expect(home.status == "Cut to 0:00.100-0:00.400 of 0:00.500? The cut parts cannot be recovered. [y/N]")
        #expect(home.press(.character("y")) == [.cut(asked, start: 0.1, end: 0.4)])
        #expect(home.message == "Cutting \"Morning\"...")
    }

    @Test("x with nothing to cut says why, and asks nothing")
    func cutNothing() async throws {
        let library = try await HomeBrowsingTests.fiveClips()
        var home = try HomeDriver(library)
        let morning = try #require(home.selected)
        home.send(.cutProposed(morning, library.version(of: morning), nil, lookBack: false))
        #expect(home.message == "No sound above the noise of \"Morning\": nothing to cut.")
        home.send(.cutProposed(morning, library.version(of: morning), TrimProposal(start: 0, end: 0.5, noiseFloor: -60, threshold: -45), lookBack: false))
        #expect(home.message == "Nothing to cut: the sound fills \"Morning\".")
        guard case .browsing = home.state.dialog.mode else { Issue.record("a question was asked"); return }
    }

    @Test("D says that deleting every clip is a command of its own; the next key clears the message")
    func deleteAllIsACommand() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        #expect(home.press(.character("D")).isEmpty)
        #expect(home.status == "Deleting every clip is a command of its own: `cravey delete-all`.")
        home.press(.character("j"))
        #expect(home.message == nil && home.status.hasPrefix("Enter play"))
    }

    @Test("a paste while browsing is no key: nothing is done, and it says so")
    func pasteWhileBrowsing() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        #expect(home.press(.paste("q")).isEmpty)
        #expect(home.message == "Pasted text is not a key: nothing was done." && !home.state.quitting)
    }

    @Test("a long message takes the player line too at 40 columns, cut where a word ends")
    func longMessage() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips(), rows: 10, columns: 40)
        home.press(.character("D"))
        #expect(home.playerLine == "Deleting every clip is a command of its")
        #expect(home.status == "own: `cravey delete-all`.")
    }

    @Test("a failed change is said with what was kept")
    func failed() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        home.send(.failed(CraveyError(.notFound, "No clip abc."), suffix: " Nothing was changed.", refresh: true))
        #expect(home.message?.hasSuffix("Nothing was changed.") == true && home.message?.contains("No clip abc.") == true)
        #expect(home.state.dialog.message?.warning == true)
    }

    @Test("a resize lays the screen out again: at 40x10 Quick Play is one row; below 40x10 it says the size it needs")
    func resize() async throws {
        var home = try HomeDriver(try await Self.played())
        home.send(.resized(rows: 10, columns: 40, paused: false))
        #expect(home.lines.count == 10 && home.lines[1].hasPrefix(" Quick Play 1 Walk it off · 2 Breathe"))
        #expect(home.state.list.rows == 5 && home.listed.count == 5)
        home.send(.resized(rows: 8, columns: 30, paused: false))
        #expect(home.lines[0] == "cravey needs at least 40x10" && home.lines[1] == "(now 30x8)")
        home.send(.resized(rows: 24, columns: 80, paused: true))
        #expect(home.message == "Paused while suspended: space goes on.")
        #expect(home.lines[1] == " Quick Play")
    }

    @Test("q quits at once when nothing plays")
    func quitIdle() async throws {
        var home = try HomeDriver(try await HomeBrowsingTests.fiveClips())
        #expect(home.press(.character("q")).isEmpty)
        #expect(home.state.finished)
    }
}
