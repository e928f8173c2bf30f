import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// The home screen as a person at a terminal uses it: `cravey` alone in a tmux window (a real
/// terminal emulator, whose screen, modes and mouse reporting the test reads), keys and mouse
/// reports typed into it, changes read back through the library.
@Suite("The home screen", .temporaryFiles)
struct HomeScreenTests {
    /// The environment of a run: the test sound server, the times in UTC (the dates on the
    /// screen), a locale that reads UTF-8.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        Cravey.environment(["TZ": "UTC", "LANG": "C.UTF-8"].merging(extra) { $1 })
    }

    /// `cravey` alone (with only --library) in a window of `columns` by `rows`, once it shows
    /// its header.
    static func home(_ library: RecordingLibrary, columns: Int = 80, rows: Int = 24,
                     environment extra: [String: String] = [:]) async throws -> TmuxTerminal {
        let terminal = try await TmuxTerminal(Cravey.executable, ["--library", library.url.path], environment: environment(extra),
                                        columns: columns, rows: rows)
        try await shows(terminal, "? help")
        return terminal
    }

    /// Waits until the screen shows `text` (within 30 s, a loaded machine included).
    static func shows(_ terminal: TmuxTerminal, _ text: String, within seconds: Double = 30,
                      sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let shown = try await offPool { terminal.waitUntilShown(within: seconds) { $0.contains(text) } }
        let screen = shown ? "" : await terminal.screen
        #expect(shown, "never showed \(text.debugDescription):\n\(screen)", sourceLocation: sourceLocation)
    }

    /// Five clips made at fixed times (Sep 21, 2026, a second apart), the first three played
    /// 3, 2 and 1 times, a wide and a combining character among the titles.
    static func library() async throws -> RecordingLibrary {
        let library = try await Fixture.library(titles: ["Breathe", "Walk it off", "Ten minutes, then decide", "日本語のタイトル",
                                                   "Cafe\u{301} cre\u{300}me"])
        for (index, recording) in try library.recordings(sortedBy: .recent).reversed().prefix(3).enumerated() {
            for _ in 0..<(3 - index) {
                try library.countPlay(of: recording.id, secondsListened: 0.5, completed: true,
                                      at: Date(timeIntervalSince1970: 1_790_000_100))
            }
        }
        return library
    }

    @Test("at 80x24 the header, Quick Play, the library newest first with dates, the selected clip and the keys; at 40x10 the same in fewer columns and rows, redrawn on resize; wide and combining characters take their width")
    func layout() async throws {
        let terminal = try await Self.home(try Self.library())
        let large = await terminal.screen, styled = await terminal.styledScreen
        #expect(large == Self.screen80x24, "\(large)")
        let (alternate, mouse, cursor) = (await terminal.state("alternate_on"), await terminal.state("mouse_any_flag"), await terminal.state("cursor_flag"))
        #expect(alternate == "1" && mouse == "1" && cursor == "0")
        // The selected row is drawn in reverse video.
        #expect(Self.isSelected("Caf", styled), "\(styled.debugDescription)")

        try await terminal.resize(columns: 40, rows: 10)
        try await Self.shows(terminal, "Quick Play 1 Breathe")
        let small = await terminal.screen
        #expect(small == Self.screen40x10, "\(small)")
        try await terminal.resize(columns: 30, rows: 8)
        try await Self.shows(terminal, "cravey needs at least 40x10")
        try await terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    /// Whether the row of the list holding `title` is drawn in reverse video (SGR 7) on
    /// `styledScreen`.
    static func isSelected(_ title: String, _ styledScreen: String) -> Bool {
        styledScreen.components(separatedBy: "\n").contains { line in
            guard let titled = line.range(of: " ♪ " + title) ?? line.range(of: " ▣ " + title) else { return false }
            return line[..<titled.lowerBound].range(of: #"\x{1B}\[[0-9;]*7m"#, options: .regularExpression) != nil
        }
    }

    static let screen80x24 = """
         cravey                                                        5 clips · ? help
         Quick Play
          1 ♪ Breathe                                                   0:01    3 plays
          2 ♪ Walk it off                                               0:01    2 plays
          3 ♪ Ten minutes, then decide                                  0:01     1 play
         Library · recent                       made         length plays  purpose
         ♪ Café crème                           Sep 21, 2026   0:01     0
         ♪ 日本語のタイトル                     Sep 21, 2026   0:01     0
         ♪ Ten minutes, then decide             Sep 21, 2026   0:01     1
         ♪ Walk it off                          Sep 21, 2026   0:01     2
         ♪ Breathe                              Sep 21, 2026   0:01     3







        ── Café crème ──────────────────────────────────────── audio · 0:01 · 0 plays ──
         (no waveform stored yet: it is made at the first play)
         No notes.
         loudness not measured · made Sep 21, 2026 2:13 PM · never played

        Enter play · 1-3 Quick Play · r record · e edit · d delete · / filter · ? help

        """

    static let screen40x10 = """
         cravey                5 clips · ? help
         Quick Play 1 Breathe · 2 Walk it off ·…
         Library · recent         length plays
         ♪ Café crème               0:01     0
         ♪ 日本語のタイトル         0:01     0
         ♪ Ten minutes, then dec…   0:01     1
         ♪ Walk it off              0:01     2
         ♪ Breathe                  0:01     3

        Enter play · 1-3 Quick Play · ? help

        """

    @Test("through the terminal's own mouse reports, the wheel scrolls the list and a click selects a row (the keys and the mouse as values: HomeBrowsingTests)")
    func mouse() async throws {
        let library = try await Fixture.library(clips: 30)
        let terminal = try await Self.home(library)
        #expect(Self.listed(await terminal.screen).first == "Clip 29")

        // Wait for the top row to change: " ♪ Clip 26 " is on screen before the wheel too
        try await terminal.wheel(down: true)
        let scrolled = try await offPool { terminal.waitUntilShown(within: 30) { Self.listed($0).first != "Clip 29" } }
        let scrolledTo = await terminal.screen
        #expect(scrolled && Self.listed(scrolledTo).first == "Clip 26", "\(scrolledTo)")

        // The third row of the list (row 8 of the window)
        try await terminal.click(column: 10, row: 8)
        try await Self.shows(terminal, "── \(Self.listed(await terminal.screen)[2]) ")
        try await terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    /// The titles of the list's rows, top down.
    static func listed(_ screen: String) -> [String] {
        let lines = screen.components(separatedBy: "\n")
        guard let heading = lines.firstIndex(where: { $0.hasPrefix(" Library") }) else { return [] }
        return lines[(heading + 1)...].prefix { $0.hasPrefix(" ♪") || $0.hasPrefix(" ▣") }.map { line in
            String(line.dropFirst(3)).components(separatedBy: "  ").first!.trimmingCharacters(in: .whitespaces)
        }
    }

    @Test("a clip another process imports shows within a second")
    func anotherProcessImports() async throws {
        let library = try await Self.library()
        let terminal = try await Self.home(library)
        let file = try await Fixture.audio(seconds: 1)

        // The screen watched while the import runs; the clip is saved once the import has ended.
        let importing = try Cravey.start(["import", file.path, "--title", "From elsewhere", "--library", library.url.path])
        async let shownAt = offPool { terminal.waitUntilShown(within: 30) { $0.contains("♪ From elsewhere") } ? Date() : nil }
        async let endedAt = offPool { importing.waitForExit(); return Date() }
        let (shown, ended) = try await (shownAt, endedAt)
        #expect(importing.terminationStatus == 0)
        let delay = try #require(shown).timeIntervalSince(ended)
        #expect(delay < 1, "shown \(delay) s after the import ended")
        #expect(await terminal.screen.contains(" 6 clips"))
        try await terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    @Test("a clip another machine's library saves and sends shows in the open home screen within 5 s of its save, merged from the sync folder; the header says the last sync")
    func anotherMachineSyncs() async throws {
        let library = try await Self.library()
        let other = try await Fixture.library()
        let folder = temporaryFolder().appendingPathComponent("sync")
        try await offPool {
            for joining in [library, other] { _ = try joining.sync.join(folder, passphrase: Array("correct horse battery staple".utf8), workFactor: 10) }
        }
        let terminal = try await Self.home(library, columns: 100)
        try await Self.shows(terminal, "synced")
        let file = try await Fixture.audio(seconds: 1)
        let importing = try Cravey.start(["import", file.path, "--title", "From the laptop", "--library", other.url.path])
        async let shownAt = offPool { terminal.waitUntilShown(within: 30) { $0.contains("♪ From the laptop") } ? Date() : nil }
        async let endedAt = offPool { importing.waitForExit(); return Date() }
        let (shown, ended) = try await (shownAt, endedAt)
        #expect(importing.terminationStatus == 0)
        let delay = try #require(shown).timeIntervalSince(ended)
        #expect(delay < 5, "shown \(delay) s after the other library's save")
        let screen = await terminal.screen
        // (The last sync may be one more after the merge, for what landed meanwhile: up to date.)
        #expect(screen.contains("synced ") && screen.contains(" 6 clips"), "\(screen)")
        try await terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    @Test("a recording copied into the sync folder's inbox while the home screen is open is left while it may still be written, then imported once it has been still 5 s, listed, and taken out of the inbox")
    func inboxCopyImported() async throws {
        let library = try await Self.library()
        let folder = temporaryFolder().appendingPathComponent("sync")
        try await offPool { _ = try library.sync.join(folder, passphrase: Array("correct horse battery staple".utf8), workFactor: 10) }
        let terminal = try await Self.home(library, columns: 100)
        try await Self.shows(terminal, "synced")
        let file = try await Fixture.audio(seconds: 1)
        let copied = folder.appendingPathComponent("inbox/Phone memo.wav")
        try FileManager.default.copyItem(at: file, to: copied)  // changed now: a copy still being written, for all cravey knows
        let started = Date()
        try await Self.shows(terminal, "♪ Phone memo")
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 4, "imported \(waited) s after the copy: once still 5 s, not before")
        #expect(!FileManager.default.fileExists(atPath: copied.path))
        try await terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    @Test("opened while its sync folder is not there (a USB stick unplugged), the home screen says so in its header and on the status line, and goes on")
    func syncFolderGoneAtOpen() async throws {
        let library = try await Self.library()
        let folder = temporaryFolder().appendingPathComponent("sync")
        try await offPool { _ = try library.sync.join(folder, passphrase: Array("correct horse battery staple".utf8), workFactor: 10) }
        try FileManager.default.moveItem(at: folder, to: folder.appendingPathExtension("away"))
        let terminal = try await Self.home(library, columns: 100)
        try await Self.shows(terminal, "folder not there")
        #expect(await terminal.screen.contains("sync failed"))
        try await terminal.type("j")
        try await terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    @Test("Ctrl-Z gives the terminal back (its mode, the cursor, no mouse reporting, the normal screen) and fg takes it again")
    func suspendAndResume() async throws {
        let library = try await Self.library()
        let terminal = try await TmuxTerminal(shellWith: Self.environment())
        try await terminal.type("cd '\(temporaryFolder().path)'; stty -a > stty.before; \(Cravey.executable) --library \(library.url.path)", "Enter")
        try await Self.shows(terminal, "? help")

        try await terminal.type("C-z")
        try await Self.shows(terminal, "Stopped")
        // The flags as tmux has parsed the program's last bytes: waited for (under load tmux was
        // seen to report them a moment after the shell's "Stopped" showed), never assumed.
        let given = try await poll(within: 5, every: 0.05) {
            terminal.currentState("mouse_any_flag") == "0" && terminal.currentState("alternate_on") == "0" && terminal.currentState("cursor_flag") == "1"
        }
        let (mouse, alternate, cursor) = (await terminal.state("mouse_any_flag"), await terminal.state("alternate_on"), await terminal.state("cursor_flag"))
        #expect(given, "mouse \(mouse), alternate screen \(alternate), cursor \(cursor)")
        try await terminal.type("stty -a > stty.suspended; cmp stty.before stty.suspended && echo SAME-MODE", "Enter")
        try await Self.shows(terminal, "SAME-MODE")

        try await terminal.type("fg", "Enter")
        try await Self.shows(terminal, "Library · recent")
        let taken = try await poll(within: 5, every: 0.05) {
            terminal.currentState("mouse_any_flag") == "1" && terminal.currentState("alternate_on") == "1"
        }
        let (mouseAgain, alternateAgain) = (await terminal.state("mouse_any_flag"), await terminal.state("alternate_on"))
        #expect(taken, "mouse \(mouseAgain), alternate screen \(alternateAgain)")
        try await terminal.type("q")
        try await Self.shows(terminal, "$ ")
        try await terminal.type("stty -a > stty.after; cmp stty.before stty.after && echo SAME-AFTER", "Enter")
        try await Self.shows(terminal, "SAME-AFTER")
    }

    /// The ways out of the home screen while a clip plays.
    enum WayOut: String, CaseIterable, Sendable {
        case q, ctrlC = "Ctrl-C", sigterm = "SIGTERM", sighup = "SIGHUP"
    }

    @Test("every way out (q, Ctrl-C, SIGTERM, SIGHUP) while a clip plays counts the play and gives the terminal back: stty -a as before, no mouse reporting, the cursor, the normal screen", arguments: WayOut.allCases)
    func wayOut(_ way: WayOut) async throws {
        let library = try RecordingLibrary(at: temporaryLibrary())
        let clip = try await library.importFile(at: try await Fixture.tones([(440, 10)]), metadata: try RecordingMetadata(title: "Long"))
        let speaker = try await VirtualMicrophone()
        let terminal = try await Self.home(library, environment: ["PULSE_SINK": speaker.sinkName])
        try await terminal.type("Enter")
        try await Self.shows(terminal, "Esc stop")
        switch way {
        case .q: try await terminal.type("q")
        case .ctrlC: try await terminal.type("C-c")
        case .sigterm, .sighup:
            let home = try #require(Self.child(of: await terminal.shellID))
            kill(home, way == .sigterm ? SIGTERM : SIGHUP)
        }
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
        let modes = try terminal.terminalModes()
        #expect(modes.before == modes.after)
        let (mouse, alternate, cursor) = (await terminal.state("mouse_any_flag"), await terminal.state("alternate_on"), await terminal.state("cursor_flag"))
        #expect(mouse == "0" && alternate == "0" && cursor == "1")
        #expect(try library.recording(clip.id)?.playCount == 1)
    }

    /// The one child process of `parent` (the home screen under the window's `sh`).
    static func child(of parent: pid_t) -> pid_t? {
        let children = (try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { pid_t($0) }
    }

    @Test("cravey alone prints the help when stdin is no terminal, and with TERM=dumb; cravey home refuses both (exit 64) and leaves the terminal as it was")
    func noScreenWithoutATerminal() async throws {
        let library = temporaryLibrary().path
        let piped = try await Cravey.run([])
        #expect(piped.status == 0 && piped.output.contains("USAGE: cravey"), "\(piped.error)")
        let home = try await Cravey.run(["home", "--library", library])
        #expect(home.status == 64 && home.error.contains("needs a terminal"), "\(home.error)")

        // (tmux sets TERM in its window: `env` sets it again for cravey.)
        let dumb = try await TmuxTerminal("/usr/bin/env", ["TERM=dumb", "CRAVEY_LIBRARY=\(library)", Cravey.executable], environment: Self.environment())
        #expect(try await offPool { dumb.waitForExit(within: 30) } == 0)
        let dumbShown = await dumb.screen
        #expect(dumbShown.contains("See 'cravey help <subcommand>' for detailed help."), "\(dumbShown)")
        // home.open = false: cravey alone prints its help on a terminal too; cravey home opens all the same
        let settings = try Cravey.settings("home.open = false\n")
        let declined = try await TmuxTerminal(Cravey.executable, [], environment: Self.environment(settings.merging(["CRAVEY_LIBRARY": library]) { $1 }))
        #expect(try await offPool { declined.waitForExit(within: 30) } == 0)
        let declinedShown = await declined.screen
        #expect(declinedShown.contains("See 'cravey help <subcommand>' for detailed help."), "\(declinedShown)")
        let opened = try await TmuxTerminal(Cravey.executable, ["home", "--library", library], environment: Self.environment(settings))
        try await Self.shows(opened, "? help")
        try await opened.type("q")
        #expect(try await offPool { opened.waitForExit(within: 30) } == 0)

        let refused = try await TmuxTerminal("/usr/bin/env", ["TERM=dumb", Cravey.executable, "home", "--library", library], environment: Self.environment())
        #expect(try await offPool { refused.waitForExit(within: 30) } == 64)
        #expect(await refused.screen.contains("needs a terminal that can move its cursor"))
        let modes = try refused.terminalModes()
        #expect(modes.before == modes.after)
    }

    @Test("what the keys ask reaches the library: x then y cuts the silence at both ends, keeping the title and plays; d then y deletes the clip (the questions and answers as values: HomeActionsTests)")
    func changesReachTheLibrary() async throws {
        // Given a clip of 1 s of silence, 3 s of a tone and 1.5 s of silence, played once
        let library = try RecordingLibrary(at: temporaryLibrary())
        let source = try await Fixture.make("m4a", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)*between(t\\,1\\,4):s=48000:d=5.5",
                                              "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
        let clip = try await library.importFile(at: source, metadata: try RecordingMetadata(title: "Fumble"))
        _ = try library.countPlay(of: clip.id, secondsListened: 5.5, completed: true)
        let terminal = try await Self.home(library)

        // When x is pressed and the cut it proposes accepted
        try await terminal.type("x")
        try await Self.shows(terminal, "The cut parts cannot be recovered. [y/N]")
        let proposed = await terminal.screen
        #expect(proposed.contains("Cut to 0:00.8") && proposed.contains("── Fumble ──"), "\(proposed)")
        try await terminal.type("y")

        // Then the clip is cut to its sound, its title and plays kept
        try await Self.shows(terminal, "Trimmed \"Fumble\"", within: 60)
        let cut = try #require(try library.recording(clip.id))
        #expect(abs(cut.duration - 3.3) < 0.1 && cut.title == "Fumble" && cut.playCount == 1, "\(cut)")

        // And d then y deletes it
        try await terminal.type("d")
        try await Self.shows(terminal, "Delete \"Fumble\"? This cannot be undone. [y/N]")
        try await terminal.type("y")
        try await Self.shows(terminal, "Deleted \"Fumble\".")
        #expect(try library.count() == 0)
        try await terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }
}

/// The home screen's sound, heard at the sink's monitor in real time (run alone by scripts/test).
@Suite("The home screen's player and recorder", .temporaryFiles)
struct HomeScreenSoundTests {
    @Test("Enter plays with the progress line; ] five times plays at 1.5x: a 2 s tone lasts 1.33 s at the sink, its pitch within 1%; the next Enter keeps the speed")
    func playAtSpeed() async throws {
        let library = try RecordingLibrary(at: temporaryLibrary())
        let clip = try await library.importFile(at: try await Fixture.tones([(440, 2)]), metadata: try RecordingMetadata(title: "Tone"))
        let speaker = try await VirtualMicrophone()
        let terminal = try await HomeScreenTests.home(library, environment: ["PULSE_SINK": speaker.sinkName])

        try await terminal.type("Enter")
        try await HomeScreenTests.shows(terminal, "1.0x")
        try await terminal.type("]", "]", "]", "]", "]")
        try await HomeScreenTests.shows(terminal, "1.5x")
        try await terminal.type("Escape")
        try await HomeScreenTests.shows(terminal, "Played \"Tone\"")

        let capture = try await SinkCapture.start(sink: speaker.sinkName)
        try await terminal.type("Enter")
        try await HomeScreenTests.shows(terminal, "Played \"Tone\" to the end")
        let heard = try await offPool { try capture.stop() }
        let sounding = ToneTrack.sounding(ToneTrack.spans(heard, frequencies: [440]))
        let length = sounding.reduce(0) { $0 + $1.duration }
        #expect(abs(length - 2 / 1.5) < 0.1, "heard \(sounding)")
        #expect(abs(Witness.dominantFrequency(heard) - 440) < 4.4)
        #expect(try library.recording(clip.id)?.playCount == 2)
        try await terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    @Test("r records from the microphone with the live meter; m marks it; s stops and saves, the marker with the clip; the look back changes the title and Enter keeps the clip, selected in the list; SIGTERM during a recording saves it, its marker too")
    func recordAndLookBack() async throws {
        let library = try RecordingLibrary(at: temporaryLibrary())
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own
        let terminal = try await HomeScreenTests.home(library, environment: ["PULSE_SOURCE": microphone.monitor])

        try await terminal.type("r")
        try await HomeScreenTests.shows(terminal, "● 0:01.")
        #expect(await terminal.screen.contains("dBFS"))
        try await terminal.type("m", "go", "Enter")
        try await HomeScreenTests.shows(terminal, "◆ 1")
        try await terminal.type("s")
        try await HomeScreenTests.shows(terminal, "p play · t title · n notes · u purpose · d discard · Enter keep")
        try await terminal.type("t", "C-u", "Morning", "Enter")
        try await HomeScreenTests.shows(terminal, "Updated \"Morning\".")
        try await terminal.type("Enter")
        try await HomeScreenTests.shows(terminal, "Kept \"Morning\".")
        let styledMorning = await terminal.styledScreen
        #expect(HomeScreenTests.isSelected("Morning", styledMorning), "selected:\n\(styledMorning)")
        let saved = try #require(try library.recordings().first)
        #expect(saved.title == "Morning" && saved.duration >= 1)
        #expect(saved.markers.map(\.label) == ["go"] && saved.markers[0].seconds >= 1 && saved.markers[0].seconds <= saved.duration,
                "\(saved.markers)")

        try await terminal.type("r")
        try await HomeScreenTests.shows(terminal, "● 0:01.")
        try await terminal.type("m")
        try await HomeScreenTests.shows(terminal, "label:")
        try await terminal.type("Enter")
        try await HomeScreenTests.shows(terminal, "◆ 1")
        kill(try #require(HomeScreenTests.child(of: await terminal.shellID)), SIGTERM)
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
        #expect(try library.count() == 2)
        // The marker made before the SIGTERM is the clip's, saved with it
        let second = try #require(try library.recordings().first { $0.id != saved.id })
        #expect(second.markers.count == 1 && second.markers[0].label == nil, "\(second.markers)")
        let modes = try terminal.terminalModes()
        #expect(modes.before == modes.after)
    }
}
