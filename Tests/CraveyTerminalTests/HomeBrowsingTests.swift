import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit
@testable import CraveyTerminal

/// The home screen's list without a terminal: the first frame, moving, paging, the order, the
/// filter and the mouse, on real SQLite libraries.
@Suite("The home screen's list, without a terminal", .temporaryFiles)
struct HomeBrowsingTests {
    /// Five clips, the newest last: the list shows "Morning" first.
    static func fiveClips() async throws -> RecordingLibrary {
        try await Fixture.library(titles: ["Breathe", "Walk it off", "Ten minutes", "Call Sam", "Morning"])
    }

    @Test("the first frame at 80x24: the header counts the clips, the list is newest first, the selected clip's details, the status line from the key table")
    func firstFrame() async throws {
        let home = try HomeDriver(try await Self.fiveClips())
        #expect(home.lines[0].hasPrefix(" cravey") && home.lines[0].hasSuffix("5 clips · ? help"))
        #expect(home.lines[1] == " Quick Play")
        #expect(home.lines[5].hasPrefix(" Library · recent"))
        #expect(home.listed == ["Morning", "Call Sam", "Ten minutes", "Walk it off", "Breathe"])
        #expect(home.lines[18].hasPrefix("── Morning ──"))
        #expect(home.status == "Enter play · 1-3 Quick Play · r record · e edit · d delete · / filter · ? help")
    }

    @Test("an empty library says how to begin, in Quick Play and in the list")
    func emptyLibrary() async throws {
        let home = try HomeDriver(try await Fixture.library())
        #expect(home.screen.contains("Nothing here yet: press r to record your first clip"))
        #expect(home.screen.contains("The library is empty. Press r to record a clip, or run `cravey import FILE`."))
        #expect(home.lines[0].hasSuffix("0 clips · ? help"))
    }

    @Test("j and ↓ move down, k and ↑ up, never past the ends; the details follow the selection")
    func moves() async throws {
        var home = try HomeDriver(try await Self.fiveClips())
        home.press(.character("j"), .down)
        #expect(home.selected?.title == "Ten minutes")
        #expect(home.lines[18].hasPrefix("── Ten minutes"))
        home.press(.character("k"))
        #expect(home.selected?.title == "Call Sam")
        home.press(.up, .up, .up)
        #expect(home.selected?.title == "Morning")
        home.press(Array(repeating: .down, count: 9))
        #expect(home.selected?.title == "Breathe")
    }

    @Test("PgDn and PgUp move a page of rows; G and End the last, g and Home the first, reading the page they are on")
    func pages() async throws {
        var home = try HomeDriver(try await Fixture.library(clips: 30))
        #expect(home.state.list.rows == 12)
        home.press(.pageDown)
        #expect(home.selected?.title == "Clip 17")
        home.press(.character("G"))
        #expect(home.selected?.title == "Clip 0")
        #expect(home.listed.last == "Clip 0")
        home.press(.pageUp)
        #expect(home.selected?.title == "Clip 12")
        home.press(.home)
        #expect(home.selected?.title == "Clip 29" && home.listed.first == "Clip 29")
        home.press(.end)
        #expect(home.selected?.title == "Clip 0")
        home.press(.character("g"))
        #expect(home.selected?.title == "Clip 29")
    }

    @Test("the wheel scrolls three rows, the selection kept among those shown")
    func wheel() async throws {
        var home = try HomeDriver(try await Fixture.library(clips: 30))
        home.press(.wheelDown)
        #expect(home.listed.first == "Clip 26")
        #expect(home.selected?.title == "Clip 26")
        home.press(.wheelUp)
        #expect(home.listed.first == "Clip 29")
        #expect(home.selected?.title == "Clip 26")
    }

    @Test("s orders by most played, then title, then recent again, the selected clip kept")
    func sort() async throws {
        let library = try await Self.fiveClips()
        let walk = try library.recordings().first { $0.title == "Walk it off" }!
        _ = try await offPool { try library.countPlay(of: walk) }
        var home = try HomeDriver(library)
        home.press(.character("s"))
        #expect(home.lines[5].hasPrefix(" Library · most played"))
        #expect(home.listed.first == "Walk it off")
        #expect(home.selected?.title == "Morning")
        home.press(.character("s"))
        #expect(home.lines[5].hasPrefix(" Library · title"))
        #expect(home.listed == ["Breathe", "Call Sam", "Morning", "Ten minutes", "Walk it off"])
        home.press(.character("s"))
        #expect(home.lines[5].hasPrefix(" Library · recent"))
    }

    @Test("a click on a row of the list selects it; a click on a Quick Play row plays that clip")
    func clicks() async throws {
        var home = try HomeDriver(try await Self.fiveClips())
        let layout = home.state.view.layout
        #expect(home.press(.click(row: layout.list.lowerBound + 2, column: 5)).isEmpty)
        #expect(home.selected?.title == "Ten minutes")
        let first = home.state.list.page.quickPlay[0]
        #expect(home.press(.click(row: layout.quickPlayRows[0], column: 5)) == [.play(first, counted: true, speed: 1)])
    }

    @Test("/ then keys typed ahead filter once, after the last of them: the list shows the matches and the header counts them")
    func filterTypedAhead() async throws {
        var home = try HomeDriver(try await Self.fiveClips())
        var state = home.state
        for key in "/Walk" { _ = state.apply(.key(.character(key))) }
        // Typed, not read yet: one query for the keys read at once
        #expect(state.list.typedFilter == "Walk" && state.list.request.filter.isEmpty)
        _ = state.apply(.keysHandled)
        #expect(state.list.request.filter == "Walk")

        home.type("/Walk")
        #expect(home.listed == ["Walk it off"])
        #expect(home.lines[0].hasSuffix("1 of 5 clips · ? help"))
        #expect(home.lines[5].contains("filter: Walk"))
        #expect(home.status.hasPrefix("/Walk  Enter keeps · Esc clears"))
        #expect(home.frame.cursor?.column == 5)
    }

    @Test("the filter is words, no # needed: a title's words with their spaces match anywhere in it")
    func filterWords() async throws {
        var home = try HomeDriver(try await Self.fiveClips())
        home.type("/it off")
        #expect(home.listed == ["Walk it off"])
        home.press(.control("u"))
        home.type("m")
        #expect(Set(home.listed) == ["Morning", "Ten minutes", "Call Sam"])
    }

    @Test("#word in the filter narrows to a tag, beside words; the selected clip's details show its tags, and a pinned clip says so in Quick Play")
    func tagsAndPins() async throws {
        // Given five clips, two tagged calm, and Breathe pinned to Quick Play's first slot
        let library = try await Self.fiveClips()
        let byTitle = Dictionary(uniqueKeysWithValues: try library.recordings().map { ($0.title, $0.id) })
        try library.tag(byTitle["Breathe"]!, adding: ["calm", "night"])
        try library.tag(byTitle["Walk it off"]!, adding: ["calm"])
        try library.pin(byTitle["Breathe"]!, slot: 1)
        var home = try HomeDriver(library)

        // Then Quick Play's first row is Breathe, pinned
        #expect(home.lines[2].contains("Breathe") && home.lines[2].hasSuffix("pinned"), "\(home.lines[2])")

        // When the filter is #calm, then #calm with a word
        home.type("/#calm")
        #expect(Set(home.listed) == ["Breathe", "Walk it off"])
        home.type(" walk")
        #expect(home.listed == ["Walk it off"])

        // Then the selected clip's details show its tags
        home.press(.control("u"))
        home.type("#night")
        #expect(home.listed == ["Breathe"])
        #expect(home.screen.contains("#calm · #night · "), "\(home.screen)")
    }

    @Test("in the filter, Backspace, Ctrl-W and Ctrl-U take back a character, a word, the line")
    func filterEdits() async throws {
        var home = try HomeDriver(try await Self.fiveClips())
        home.type("/Walk itx")
        #expect(home.listed.isEmpty)
        home.press(.backspace)
        #expect(home.state.list.request.filter == "Walk it" && home.listed == ["Walk it off"])
        home.press(.control("w"))
        #expect(home.state.list.request.filter == "Walk ")
        home.press(.control("u"))
        #expect(home.state.list.request.filter.isEmpty && home.listed.count == 5)
    }

    @Test("Enter keeps the filter and browses it; Escape in it clears it; Escape while browsing clears a kept one")
    func filterKeptAndCleared() async throws {
        var home = try HomeDriver(try await Self.fiveClips())
        home.type("/Ten")
        home.press(.enter)
        guard case .browsing = home.state.dialog.mode else { Issue.record("still filtering"); return }
        #expect(home.listed == ["Ten minutes"] && home.status.hasPrefix("Enter play"))
        home.press(.escape)
        #expect(home.listed.count == 5 && home.state.list.request.filter.isEmpty)
        home.type("/Ten")
        home.press(.escape)
        #expect(home.listed.count == 5)
        guard case .browsing = home.state.dialog.mode else { Issue.record("still filtering"); return }
    }

    @Test("a filter that matches nothing says so and how to clear it")
    func filterNothing() async throws {
        var home = try HomeDriver(try await Self.fiveClips())
        home.type("/zzz")
        #expect(home.screen.contains("No clip holds \"zzz\", written or said. Escape clears the filter."))
        #expect(home.lines[0].hasSuffix("0 of 5 clips · ? help"))
    }

    @Test("a paste into the filter is text: its line breaks become spaces")
    func filterPaste() async throws {
        var home = try HomeDriver(try await Self.fiveClips())
        home.press(.character("/"), .paste("Ten\nmin"))
        #expect(home.state.list.request.filter == "Ten min")
        #expect(home.listed == ["Ten minutes"])
    }

    @Test("the arrows move the selection while the filter is typed, the filter still typed")
    func filterArrows() async throws {
        var home = try HomeDriver(try await Self.fiveClips())
        home.type("/m")
        home.press(.down)
        #expect(home.listed == ["Morning", "Call Sam", "Ten minutes"])
        #expect(home.selected?.title == "Call Sam")
        guard case .filtering = home.state.dialog.mode else { Issue.record("not filtering"); return }
    }

    @Test("another process's change shows once the library is read again")
    func changedElsewhere() async throws {
        let library = try await Self.fiveClips()
        var home = try HomeDriver(library)
        let id = try #require(home.selected?.id)
        _ = try await offPool { try RecordingLibrary(at: library.url, creating: false).edit(id) { $0.title = "Morning walk" } }
        #expect(home.listed.first == "Morning")
        home.send(.libraryChanged)
        #expect(home.listed.first == "Morning walk")
        #expect(home.selected?.id == id)
    }
}
