@testable import CraveyKit
import Testing
@testable import CraveyTerminal

/// The terminal app's parts that need no terminal: the key reader's sequences and the home
/// screen's layout at each size.
@Suite("The terminal's parts")
struct TerminalPartsTests {
    @Test("the key reader reads arrows, Home and End in both forms, a click, Escape alone and Backspace; waits for the rest of a sequence")
    func keySequences() {
        let bytes = { (text: String) in Array(text.utf8) }
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[C"))! == (.right, 3))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}OD"))! == (.left, 3))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[1~x"))! == (.home, 4))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[F"))! == (.end, 3))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[<0;12;5M"))! == (.click(row: 4, column: 11), 10))
        // A release is no key, and is read whole; the wheel is the wheel
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[<0;12;5m"))! == (nil, 10))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[<64;1;1M"))! == (.wheelUp, 10))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[<65;1;1M"))! == (.wheelDown, 10))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}x"))! == (.escape, 1))
        #expect(KeyReader.key(startingAt: [0x7F])! == (.backspace, 1))
        #expect(KeyReader.key(startingAt: bytes(" "))! == (.character(" "), 1))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[")) == nil)
        #expect(KeyReader.key(startingAt: bytes("\u{1B}")) == nil)
    }

    @Test("the key reader reads what the home screen's ncurses read: X10 mouse reports, the keypad's Enter, a character's UTF-8 whole, waiting for its rest")
    func homeScreenKeys() {
        let bytes = { (text: String) in Array(text.utf8) }
        // ESC [ M, then the button, column and row, each plus 32 (1-based)
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[M +)"))! == (.click(row: 8, column: 10), 6))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[Ma!!"))! == (.wheelDown, 6))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[M`!!"))! == (.wheelUp, 6))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[M#!!"))! == (nil, 6))
        #expect(KeyReader.key(startingAt: bytes("\u{1B}[M +")) == nil)
        #expect(KeyReader.key(startingAt: bytes("\u{1B}OM"))! == (.enter, 3))
        #expect(KeyReader.key(startingAt: bytes("é"))! == (.character("é"), 2))
        #expect(KeyReader.key(startingAt: bytes("猫x"))! == (.character("猫"), 3))
        #expect(KeyReader.key(startingAt: Array(bytes("猫").prefix(2))) == nil)
        #expect(KeyReader.key(startingAt: [0x80])! == (nil, 1))
    }

    @Test("the key decoder keeps a sequence cut between reads, makes a paste one key of its text (its marks cut between reads too), drops keys a paste's lone end came with, and times an Escape alone out")
    func decoder() {
        let bytes = { (text: String) in Array(text.utf8) }
        var decoder = KeyReader.Decoder()
        #expect(decoder.keys(bytes("j\u{1B}[")) == [.character("j")] && decoder.waiting)
        #expect(decoder.keys(bytes("Bk")) == [.down, .character("k")] && !decoder.waiting)
        #expect(decoder.keys(bytes("\u{1B}[200~two\nli")).isEmpty && !decoder.waiting)
        #expect(decoder.keys(bytes("nes\u{1B}[20")).isEmpty)
        #expect(decoder.keys(bytes("1~q")) == [.paste("two\nlines"), .character("q")])
        // Ctrl-C inside a paste: the terminal threw its start away
        #expect(decoder.keys(bytes("rest\u{1B}[201~")).isEmpty)
        #expect(decoder.keys(bytes("\u{1B}")).isEmpty && decoder.waiting)
        #expect(decoder.timedOut() == [.escape] && !decoder.waiting)
        #expect(decoder.keys(bytes("\u{1B}[1")).isEmpty && decoder.timedOut().isEmpty)
    }

    @Test("the player line's bar shows a clip's markers as ◆, each in the column of its thirtieth of the clip (its end in the last)")
    func markersOnTheBar() {
        let markers = [ClipMarker(milliseconds: 0, label: nil), ClipMarker(milliseconds: 14_999, label: "x"), ClipMarker(milliseconds: 30_000, label: nil)]
        #expect(ProgressLine.columns(of: markers, duration: 30) == [0, 14, 29])
        #expect(ProgressLine.columns(of: markers, duration: 0).isEmpty && ProgressLine.columns(of: markers, duration: 30, width: 0).isEmpty)
        let line = ProgressLine(duration: 30, waveform: nil, colour: false)
        let drawn = line.draw(PlaybackEvent(state: .playing, position: 0, duration: 30, speed: 1), markers: markers)
        #expect(drawn.filter { $0 == "◆" }.count == 3 && drawn.contains("[◆░"), "\(drawn)")
    }

    @Test("the layout gives every block a place from 40x10 up; 18 rows give Quick Play its own lines, 22 the details four; 86 columns the full date")
    func layout() {
        let small = HomeLayout(rows: 10, columns: 40)
        #expect(small.fits && small.quickPlayHeading == nil && small.quickPlayRows == [1])
        #expect(small.details.isEmpty && small.player == 8 && small.status == 9 && small.list == 3..<8)
        #expect(small.listColumns.date == nil && small.listColumns.purpose == nil)
        #expect(!HomeLayout(rows: 9, columns: 40).fits && !HomeLayout(rows: 10, columns: 39).fits)

        let large = HomeLayout(rows: 24, columns: 80)
        #expect(large.quickPlayHeading == 1 && large.quickPlayRows == [2, 3, 4] && large.libraryHeading == 5)
        #expect(large.details == 18..<22 && large.player == 22 && large.status == 23 && large.list == 6..<18)
        #expect(large.listColumns.date == 13 && large.listColumns.shortDate && large.listColumns.purpose == 13)
        #expect(HomeLayout(rows: 14, columns: 86).details.count == 1 && HomeLayout(rows: 14, columns: 86).listColumns.date == 21)
    }
}

/// The look back's choices, listed once for `cravey record` and the home screen.
@Suite("The look back's choices")
struct LookBackChoiceTests {
    @Test("record's look back and the home screen's offer the same choices: the same keys line, labels and questions")
    func oneList() {
        #expect(Preview.keys == "p play · t title · n notes · u purpose · d discard · Enter keep")
        #expect(Preview.shapeKeys == "i/o start/end at the play position · a auto start/end · [ ] hear the first/last 3 s · x cut · c clean noise")
        #expect(HomeMode.Prompt.questions == LookBackChoice.questions.map { $0 + ":" })
        #expect(LookBackChoice.questions[0] == "Title (at most 40 characters; empty: \"Recording <date>\")")
        let choices: [(Key, LookBackChoice)] = [(.character("p"), .play), (.character("t"), .title), (.character("n"), .notes),
                                                (.character("u"), .purpose), (.character("d"), .discard), (.enter, .keep), (.escape, .keep)]
        for (key, choice) in choices { #expect(KeyTable.action(for: key, in: .lookBack) == .lookBack(choice)) }
        #expect(KeyTable.action(for: .character("x"), in: .lookBack) == nil)
        #expect(KeyTable.action(for: .character("x"), in: .shaping) == .cutNow)
    }
}
