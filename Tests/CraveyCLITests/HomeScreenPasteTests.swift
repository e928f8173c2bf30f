import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Pastes and keys queued up, as a person at a terminal makes them: text pasted by tmux (between
/// bracketed-paste marks when the program asks for them, `paste-buffer -p`, or as if typed all
/// at once, as a terminal without them pastes) into the home screen's look back, `cravey
/// record`'s, and the filter over 100,000 clips; a terminal closed, a hang-up and Ctrl-C with a
/// long paste queued.
@Suite("Pastes and keys queued up", .temporaryFiles)
struct HomeScreenPasteTests {
    @Test("a title pasted with line breaks into the home screen's look back (LF or CR, a d and y or q after them, with or without bracketed paste) is refused whole: nothing of it is a key, and the clip is kept as it was; a paste at the look back's keys is no key, at its question no answer; a Ctrl-C inside a paste leaves with the clip kept")
    func homeLookBack() async throws {
        // Given a clip just recorded on the home screen, at its look back
        let library = try RecordingLibrary(at: temporaryLibrary())
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own
        let terminal = try await HomeScreenTests.home(library, environment: ["PULSE_SOURCE": microphone.monitor])
        try await terminal.type("r")
        try await HomeScreenTests.shows(terminal, "● 0:01.")
        try await terminal.type("s")
        try await HomeScreenTests.shows(terminal, "p play · t title · n notes · u purpose · d discard · Enter keep")
        let saved = try #require(try library.recordings().first)

        // When titles with line breaks are pasted into its title
        for (text, bracketed) in [("Title\nd\ny\n", true), ("Title\ndy\n", true), ("Title\rd\ry\r", true), ("Title\nq\n", true),
                                  ("Title\rdy\r", false), ("Title\nd\ny\n", false), ("Title\rq\r", false)] {
            try await terminal.type("t")
            try await HomeScreenTests.shows(terminal, "Title (at most 40")
            try await terminal.paste(text, bracketed: bracketed)
            // Then each is refused, and nothing after its line break is a key
            try await HomeScreenTests.shows(terminal, "A line break (pasted?) cannot go in the title: nothing was changed.")
            let kept = try #require(try library.recording(saved.id), "\(text.debugDescription) discarded the clip")
            #expect(kept.title == saved.title && !kept.title.contains(where: \.isNewline), "\(text.debugDescription): \(kept.title.debugDescription)")
            #expect(await terminal.state("pane_dead") == "0", "\(text.debugDescription) ended the home screen")
        }

        // A paste at the look back's keys is no key; at its question, no answer
        try await terminal.paste("d\ny\n")
        try await HomeScreenTests.shows(terminal, "Pasted text is not a key: nothing was done.")
        try await terminal.type("d")
        try await HomeScreenTests.shows(terminal, "Discard recording? This cannot be undone. [y/N]")
        try await terminal.paste("y\n")
        try await HomeScreenTests.shows(terminal, "Pasted text is no answer. Not discarded.")
        #expect(try library.count() == 1)

        // A Ctrl-C inside a pasted title ends the home screen (the terminal sends SIGINT), the clip kept as it was
        try await terminal.type("t")
        try await HomeScreenTests.shows(terminal, "Title (at most 40")
        try await terminal.paste("Title\u{3}d\ny\n")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
        #expect(try library.recording(saved.id)?.title == saved.title)
    }

    @Test("cravey record's look back (on tmux): a d and a y pasted at its keys are no keys (bracketed paste), and a title pasted with line breaks is refused; Enter keeps the clip as it was")
    func recordLookBack() async throws {
        let library = temporaryLibrary()
        let microphone = try await VirtualMicrophone()
        let terminal = try await TmuxTerminal(Cravey.executable, ["record", "--seconds", "1", "--title", "Before", "--library", library.path,
                                                            "--device", microphone.monitor],
                                        environment: HomeScreenTests.environment())
        try await HomeScreenTests.shows(terminal, "p play · t title · n notes · u purpose · d discard · Enter keep", within: 90)
        // (The keys are read once the terminal is lent for them, just after they are shown.)
        try await Task.sleep(for: .seconds(1))

        try await terminal.paste("d")
        try await HomeScreenTests.shows(terminal, "Pasted text is not a key")
        try await terminal.paste("y\n")
        let second = try await offPool {
            terminal.waitUntilShown(within: 30) { $0.components(separatedBy: "Pasted text is not a key").count - 1 >= 2 }
        }
        let afterSecond = await terminal.screen
        #expect(second, "\(afterSecond)")
        try await terminal.type("t")
        try await HomeScreenTests.shows(terminal, "Title (at most 40")
        try await terminal.paste("Title\ndy\n")
        try await HomeScreenTests.shows(terminal, "line break (pasted?)")
        try await terminal.type("Enter")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
        let kept = await terminal.screen
        #expect(kept.contains("Kept \"Before\""), "\(kept)")
        #expect(try RecordingLibrary(at: library).recordings().map(\.title) == ["Before"])
    }

    /// A library of 100,001 clips, one of them ("Needle") with notes holding `needle`.
    static func needleLibrary(_ needle: String) async throws -> RecordingLibrary {
        let library = try await Fixture.largeLibrary(rows: 100_000)
        // (Written by sqlite3: cravey's own edits keep notes within 200 characters.)
        let edit = try await run("sqlite3", [library.url.appendingPathComponent("library.sqlite").path,
                                       "UPDATE recording SET title = 'Needle', notes = 'found: \(needle)' WHERE title = 'Clip 77777'"])
        try #require(edit.status == 0, "\(edit.error)")
        return library
    }

    /// 520 characters of words that only the needle's notes hold.
    static let needle = String((0..<200).map { "w\($0)" }.joined(separator: " ").prefix(520))

    @Test("520 characters pasted into the filter over 100,000 clips (bracketed, then as if typed at once) show the one clip holding them within 3 s each")
    func filterPaste() async throws {
        let library = try await Self.needleLibrary(Self.needle)
        let terminal = try await HomeScreenTests.home(library)
        for bracketed in [true, false] {
            try await terminal.type("/")
            try await HomeScreenTests.shows(terminal, "Enter keeps")
            let pasted = Date()
            try await terminal.paste(Self.needle, bracketed: bracketed)
            let shown = try await offPool {
                terminal.waitUntilShown(within: 120) { $0.contains("1 of 100001 clips") && HomeScreenTests.listed($0) == ["Needle"] }
            }
            let seconds = Date().timeIntervalSince(pasted)
            print("HomeScreenPasteTests: 520 characters pasted into the filter (bracketed: \(bracketed)) shown in \(String(format: "%.2f", seconds)) s")
            let filtered = await terminal.screen
            #expect(shown && seconds < 3, "bracketed: \(bracketed), \(seconds) s:\n\(filtered)")
            try await terminal.type("Escape")
            let cleared = try await offPool { terminal.waitUntilShown(within: 60) { !$0.contains("filter:") && $0.contains(" 100001 clips") } }
            let afterClear = await terminal.screen
            #expect(cleared, "\(afterClear)")
        }
        try await terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    /// How a test leaves the home screen with a long paste queued.
    enum Leaving: String, CaseIterable, Sendable {
        case closed = "the terminal closed", hangUp = "SIGHUP", interrupt = "Ctrl-C"
    }

    @Test("with 3,000 characters pasted into the filter over 100,000 clips, the terminal closed, a SIGHUP or Ctrl-C end the home screen within 2 s", arguments: Leaving.allCases)
    func leaveWithPasteQueued(_ leaving: Leaving) async throws {
        let library = try await Fixture.largeLibrary(rows: 100_000)
        let terminal = try await HomeScreenTests.home(library)
        let home = try #require(HomeScreenTests.child(of: await terminal.shellID))
        try await terminal.type("/")
        try await HomeScreenTests.shows(terminal, "Enter keeps")
        // Not bracketed for a hang-up and Ctrl-C: 3,000 keys read at once, as a terminal without bracketed paste sends them
        try await terminal.paste(String(repeating: "abcdefghij", count: 300), bracketed: leaving == .closed)
        // Time is the subject: the home screen is to be in the middle of the paste when it is
        // left, and nothing it shows says so.
        try await Task.sleep(for: .milliseconds(300))

        let asked = Date()
        switch leaving {
        case .closed: try await terminal.close()
        case .hangUp: kill(home, SIGHUP)
        case .interrupt: try await terminal.type("C-c")
        }
        let gone = try await offPool { waitUntil(within: 180, every: 0.02) { !Self.isRunning(home) } }
        let seconds = Date().timeIntervalSince(asked)
        print("HomeScreenPasteTests: \(leaving.rawValue) with 3,000 characters pasted: gone in \(String(format: "%.2f", seconds)) s")
        #expect(gone && seconds < 2, "\(leaving.rawValue): \(seconds) s")
        if leaving == .interrupt {
            #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
        }
    }

    @Test("every way out of the home screen (q, Ctrl-C, SIGTERM, SIGHUP) turns bracketed paste off again, as mouse reporting", arguments: ["q", "SIGINT", "SIGTERM", "SIGHUP"])
    func waysOutTurnPasteOff(_ way: String) async throws {
        let library = try await Fixture.library(clips: 1)
        let terminal = try Cravey.startOnTerminal(["--library", library.url.path], environment: ["LANG": "C.UTF-8"])
        let asked = try await offPool { terminal.waitUntilShown(within: 30) { $0.contains("\u{1B}[?2004h") } }
        #expect(asked, "\(terminal.output.debugDescription)")
        switch way {
        case "q": terminal.type("q")
        default: kill(terminal.process.processIdentifier, ["SIGINT": SIGINT, "SIGTERM": SIGTERM, "SIGHUP": SIGHUP][way]!)
        }
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0, "\(way): \(shown.debugDescription)")
        let off = shown.components(separatedBy: "\u{1B}[?2004h").last?.contains("\u{1B}[?2004l") ?? false
        #expect(off && shown.contains("\u{1B}[?2004h"), "\(way): \(shown.debugDescription)")
    }

    /// Whether the process `id` still runs (a zombie has ended). The corresponding C function is `kill`.
    static func isRunning(_ id: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(id)/stat", encoding: .utf8),
              let close = stat.range(of: ")", options: .backwards) else { return false }
        return !stat[close.upperBound...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
