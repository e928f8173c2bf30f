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
        let terminal = try TmuxTerminal(Cravey.executable, ["--library", library.url.path], environment: environment(extra),
                                        columns: columns, rows: rows)
        try await shows(terminal, "? help")
        return terminal
    }

    /// Waits until the screen shows `text` (within 30 s, a loaded machine included).
    static func shows(_ terminal: TmuxTerminal, _ text: String, within seconds: Double = 30,
                      sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let shown = try await offPool { terminal.waitUntilShown(within: seconds) { $0.contains(text) } }
        #expect(shown, "never showed \(text.debugDescription):\n\(terminal.screen)", sourceLocation: sourceLocation)
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
        #expect(terminal.screen == Self.screen80x24, "\(terminal.screen)")
        #expect(terminal.state("alternate_on") == "1" && terminal.state("mouse_any_flag") == "1" && terminal.state("cursor_flag") == "0")
        // The selected row is drawn in reverse video.
        #expect(Self.isSelected("Caf", terminal.styledScreen), "\(terminal.styledScreen.debugDescription)")

        try terminal.resize(columns: 40, rows: 10)
        try await Self.shows(terminal, "Quick Play 1 Breathe")
        #expect(terminal.screen == Self.screen40x10, "\(terminal.screen)")
        try terminal.resize(columns: 30, rows: 8)
        try await Self.shows(terminal, "cravey needs at least 40x10")
        try terminal.type("q")
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

    @Test("1, 2 and 3 play Quick Play's clips at once (the sink hears the second's tone) and count the play")
    func quickPlayKeys() async throws {
        let library = try RecordingLibrary(at: temporaryLibrary())
        var ids: [Double: RecordingID] = [:]
        for (frequency, plays) in [(440.0, 2), (660.0, 1), (880.0, 3)] {
            let clip = try await library.importFile(at: try await Fixture.tones([(frequency, 1)]), metadata: try RecordingMetadata(title: "\(Int(frequency)) Hz"))
            for _ in 0..<plays { try library.countPlay(of: clip) }
            ids[frequency] = clip.id
        }
        let speaker = try await VirtualMicrophone()
        let terminal = try await Self.home(library, environment: ["PULSE_SINK": speaker.sinkName])
        let capture = try await SinkCapture.start(sink: speaker.sinkName)

        // Quick Play's second is the 440 Hz clip (2 plays, after 880 Hz's 3)
        try terminal.type("2")
        try await Self.shows(terminal, "Played \"440 Hz\" to the end (counted: 3 plays)")
        let heard = try capture.stop()
        #expect(abs(Witness.dominantFrequency(heard) - 440) < 5)
        #expect(try library.recording(ids[440]!)?.playCount == 3)
        try terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    @Test("/ filters as it is typed and Escape brings every clip back; s orders by plays, then by title; a click selects a row")
    func filterSortAndMouse() async throws {
        let library = try await Self.library()
        let terminal = try await Self.home(library)

        try terminal.type("/", "w", "a")
        try await Self.shows(terminal, "1 of 5 clips")
        #expect(terminal.screen.contains("Library · recent · filter: wa") && terminal.screen.contains("/wa"))
        #expect(Self.listed(terminal.screen) == ["Walk it off"], "only Walk it off holds \"wa\":\n\(terminal.screen)")
        try terminal.type("Escape")
        // (" 5 clips" alone is already shown, in "1 of 5 clips": the filter's end is awaited)
        let cleared = try await offPool { terminal.waitUntilShown(within: 30) { !$0.contains("filter:") && $0.contains(" 5 clips") } }
        #expect(cleared, "Escape did not clear the filter:\n\(terminal.screen)")
        #expect(Self.listed(terminal.screen).count == 5)

        try terminal.type("s")
        try await Self.shows(terminal, "Library · most played")
        #expect(Self.listed(terminal.screen).prefix(3) == ["Breathe", "Walk it off", "Ten minutes, then decide"])
        try terminal.type("s")
        try await Self.shows(terminal, "Library · title")
        #expect(Self.listed(terminal.screen).first == "Breathe")

        // The third row of the list (row 8 of the window)
        try terminal.click(column: 10, row: 8)
        try await Self.shows(terminal, "── \(Self.listed(terminal.screen)[2]) ")
        try terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    @Test("30 clips: the wheel scrolls the list, j and PgDn move the selection a row and a page, G goes to the last clip and g to the first")
    func scrolling() async throws {
        let library = try await Fixture.library(clips: 30)
        let terminal = try await Self.home(library)
        #expect(Self.listed(terminal.screen).first == "Clip 29")
        let rows = Self.listed(terminal.screen).count

        // Wait for the top row to change: " ♪ Clip 26 " is on screen before the wheel too
        try terminal.wheel(down: true)
        let scrolled = try await offPool { terminal.waitUntilShown(within: 30) { Self.listed($0).first != "Clip 29" } }
        #expect(scrolled && Self.listed(terminal.screen).first == "Clip 26", "\(terminal.screen)")
        try terminal.type("G")
        try await Self.shows(terminal, "── Clip 0 ")
        #expect(Self.listed(terminal.screen).last == "Clip 0" && Self.isSelected("Clip 0", terminal.styledScreen))
        try terminal.type("g", "j")
        try await Self.shows(terminal, "── Clip 28 ")
        try terminal.type("NPage")
        try await Self.shows(terminal, "── Clip \(28 - rows) ")
        try terminal.type("q")
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

    @Test("e changes title, notes and purpose as edit does, a refusal shown and nothing changed; d deletes after y and keeps after n")
    func editAndDelete() async throws {
        let library = try await Self.library()
        let terminal = try await Self.home(library)
        let selected = try #require(try library.recordings(sortedBy: .recent).first)

        // (Each answer typed once its question shows: keys read at once after an Enter are a paste.)
        try terminal.type("e", "C-u")
        try terminal.type(String(repeating: "x", count: 41), "Enter")
        try await Self.shows(terminal, "Notes (at most")
        try terminal.type("Enter")
        try await Self.shows(terminal, "Purpose (")
        try terminal.type("Enter")
        try await Self.shows(terminal, "the limit is 40")
        #expect(terminal.screen.contains("Nothing was changed"))
        #expect(try library.recording(selected.id) == selected)

        try terminal.type("e", "C-u", "Morning ", "Enter")
        try await Self.shows(terminal, "Notes (at most")
        try terminal.type("after a walk", "Enter")
        try await Self.shows(terminal, "Purpose (")
        try terminal.type("C-u", "craving", "Enter")
        try await Self.shows(terminal, "Updated \"Morning\" (the spaces at the ends of the title were removed).")
        let edited = try #require(try library.recording(selected.id))
        #expect(edited.title == "Morning" && edited.notes == "after a walk" && edited.purpose == .craving)
        try await Self.shows(terminal, "── Morning ")

        try terminal.type("d")
        try await Self.shows(terminal, "Delete \"Morning\"? This cannot be undone. [y/N]")
        try terminal.type("n")
        try await Self.shows(terminal, "Kept \"Morning\".")
        #expect(try library.count() == 5)
        // (Only a key typed after the question shows answers it.)
        try terminal.type("d")
        try await Self.shows(terminal, "Delete \"Morning\"? This cannot be undone. [y/N]")
        try terminal.type("y")
        try await Self.shows(terminal, "Deleted \"Morning\".")
        #expect(try library.count() == 4 && library.recording(selected.id) == nil)
        try await Self.shows(terminal, " 4 clips")
        try terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
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
        #expect(terminal.screen.contains(" 6 clips"))
        try terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    @Test("Ctrl-Z gives the terminal back (its mode, the cursor, no mouse reporting, the normal screen) and fg takes it again")
    func suspendAndResume() async throws {
        let library = try await Self.library()
        let terminal = try TmuxTerminal(shellWith: Self.environment())
        try terminal.type("cd '\(temporaryFolder().path)'; stty -a > stty.before; \(Cravey.executable) --library \(library.url.path)", "Enter")
        try await Self.shows(terminal, "? help")

        try terminal.type("C-z")
        try await Self.shows(terminal, "Stopped")
        // The flags as tmux has parsed the program's last bytes: waited for (under load tmux was
        // seen to report them a moment after the shell's "Stopped" showed), never assumed.
        let given = try await poll(within: 5, every: 0.05) {
            terminal.state("mouse_any_flag") == "0" && terminal.state("alternate_on") == "0" && terminal.state("cursor_flag") == "1"
        }
        #expect(given, "mouse \(terminal.state("mouse_any_flag")), alternate screen \(terminal.state("alternate_on")), cursor \(terminal.state("cursor_flag"))")
        try terminal.type("stty -a > stty.suspended; cmp stty.before stty.suspended && echo SAME-MODE", "Enter")
        try await Self.shows(terminal, "SAME-MODE")

        try terminal.type("fg", "Enter")
        try await Self.shows(terminal, "Library · recent")
        let taken = try await poll(within: 5, every: 0.05) {
            terminal.state("mouse_any_flag") == "1" && terminal.state("alternate_on") == "1"
        }
        #expect(taken, "mouse \(terminal.state("mouse_any_flag")), alternate screen \(terminal.state("alternate_on"))")
        try terminal.type("q")
        try await Self.shows(terminal, "$ ")
        try terminal.type("stty -a > stty.after; cmp stty.before stty.after && echo SAME-AFTER", "Enter")
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
        try terminal.type("Enter")
        try await Self.shows(terminal, "Esc stop")
        switch way {
        case .q: try terminal.type("q")
        case .ctrlC: try terminal.type("C-c")
        case .sigterm, .sighup:
            let home = try #require(Self.child(of: terminal.shellID))
            kill(home, way == .sigterm ? SIGTERM : SIGHUP)
        }
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
        let modes = try terminal.terminalModes()
        #expect(modes.before == modes.after)
        #expect(terminal.state("mouse_any_flag") == "0" && terminal.state("alternate_on") == "0" && terminal.state("cursor_flag") == "1")
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
        let dumb = try TmuxTerminal("/usr/bin/env", ["TERM=dumb", "CRAVEY_LIBRARY=\(library)", Cravey.executable], environment: Self.environment())
        #expect(try await offPool { dumb.waitForExit(within: 30) } == 0)
        #expect(dumb.screen.contains("See 'cravey help <subcommand>' for detailed help."), "\(dumb.screen)")
        // home.open = false: cravey alone prints its help on a terminal too; cravey home opens all the same
        let settings = try Cravey.settings("home.open = false\n")
        let declined = try TmuxTerminal(Cravey.executable, [], environment: Self.environment(settings.merging(["CRAVEY_LIBRARY": library]) { $1 }))
        #expect(try await offPool { declined.waitForExit(within: 30) } == 0)
        #expect(declined.screen.contains("See 'cravey help <subcommand>' for detailed help."), "\(declined.screen)")
        let opened = try TmuxTerminal(Cravey.executable, ["home", "--library", library], environment: Self.environment(settings))
        try await Self.shows(opened, "? help")
        try opened.type("q")
        #expect(try await offPool { opened.waitForExit(within: 30) } == 0)

        let refused = try TmuxTerminal("/usr/bin/env", ["TERM=dumb", Cravey.executable, "home", "--library", library], environment: Self.environment())
        #expect(try await offPool { refused.waitForExit(within: 30) } == 64)
        #expect(refused.screen.contains("needs a terminal that can move its cursor"))
        let modes = try refused.terminalModes()
        #expect(modes.before == modes.after)
    }

    @Test("x proposes to cut the silence at both ends (as trim --auto), asks, and n keeps the clip whole; y cuts it, keeping its title and plays")
    func cutSilence() async throws {
        // Given a clip of 1 s of silence, 3 s of a tone and 1.5 s of silence, played once
        let library = try RecordingLibrary(at: temporaryLibrary())
        let source = try await Fixture.make("m4a", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)*between(t\\,1\\,4):s=48000:d=5.5",
                                              "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
        let clip = try await library.importFile(at: source, metadata: try RecordingMetadata(title: "Fumble"))
        _ = try library.countPlay(of: clip.id, secondsListened: 5.5, completed: true)
        let terminal = try await Self.home(library)

        // When x is pressed and the question declined
        try terminal.type("x")
        try await Self.shows(terminal, "The cut parts cannot be recovered. [y/N]")
        #expect(terminal.screen.contains("Cut to 0:00.8") && terminal.screen.contains("── Fumble ──"), "\(terminal.screen)")
        try terminal.type("n")
        try await Self.shows(terminal, "Nothing was cut.")
        #expect(try library.recording(clip.id)?.duration == clip.duration)

        // Then, asked again and accepted, the clip is cut to its sound, its words and plays kept
        try terminal.type("x")
        try await Self.shows(terminal, "[y/N]")
        try terminal.type("y")
        try await Self.shows(terminal, "Trimmed \"Fumble\"", within: 60)
        let cut = try #require(try library.recording(clip.id))
        #expect(abs(cut.duration - 3.3) < 0.1 && cut.title == "Fumble" && cut.playCount == 1, "\(cut)")
        try terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    @Test("x asked, then another process trims the clip, then y: the status line says another cravey changed it and nothing was cut; the clip's row and media are as the other left them")
    func cutAfterAnotherTrim() async throws {
        // Given the clip of 1 s of silence, 3 s of a tone and 1.5 s of silence, and x asked
        let library = try RecordingLibrary(at: temporaryLibrary())
        let source = try await Fixture.make("m4a", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)*between(t\\,1\\,4):s=48000:d=5.5",
                                              "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
        let clip = try await library.importFile(at: source, metadata: try RecordingMetadata(title: "Fumble"))
        let terminal = try await Self.home(library)
        try terminal.type("x")
        try await Self.shows(terminal, "The cut parts cannot be recovered. [y/N]")

        // When another cravey cuts it meanwhile, and then the question is answered yes
        let other = try await Cravey.run(["trim", clip.id.description, "--start", "0.5", "--end", "5", "--yes", "--library", library.url.path])
        try #require(other.status == 0, "\(other.error)")
        let row = try library.recording(clip.id), media = try Data(contentsOf: try library.fileURL(of: clip))
        try terminal.type("y")

        // Then the status line says so, and the clip is as the other process left it
        try await Self.shows(terminal, "changed by another cravey", within: 60)
        #expect(terminal.screen.contains("Nothing was cut"), "\(terminal.screen)")
        #expect(try library.recording(clip.id) == row)
        #expect(abs(try #require(row).duration - 4.5) < 0.01)
        #expect(try Data(contentsOf: try library.fileURL(of: clip)) == media)
        try terminal.type("q")
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

        try terminal.type("Enter")
        try await HomeScreenTests.shows(terminal, "1.0x")
        try terminal.type("]", "]", "]", "]", "]")
        try await HomeScreenTests.shows(terminal, "1.5x")
        try terminal.type("Escape")
        try await HomeScreenTests.shows(terminal, "Played \"Tone\"")

        let capture = try await SinkCapture.start(sink: speaker.sinkName)
        try terminal.type("Enter")
        try await HomeScreenTests.shows(terminal, "Played \"Tone\" to the end")
        let heard = try capture.stop()
        let sounding = ToneTrack.sounding(ToneTrack.spans(heard, frequencies: [440]))
        let length = sounding.reduce(0) { $0 + $1.duration }
        #expect(abs(length - 2 / 1.5) < 0.1, "heard \(sounding)")
        #expect(abs(Witness.dominantFrequency(heard) - 440) < 4.4)
        #expect(try library.recording(clip.id)?.playCount == 2)
        try terminal.type("q")
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
    }

    @Test("r records from the microphone with the live meter; m marks it; s stops and saves, the marker with the clip; the look back changes the title and Enter keeps the clip, selected in the list; SIGTERM during a recording saves it, its marker too")
    func recordAndLookBack() async throws {
        let library = try RecordingLibrary(at: temporaryLibrary())
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { tone.terminate() }
        let terminal = try await HomeScreenTests.home(library, environment: ["PULSE_SOURCE": microphone.monitor])

        try terminal.type("r")
        try await HomeScreenTests.shows(terminal, "● 0:01.")
        #expect(terminal.screen.contains("dBFS"))
        try terminal.type("m", "go", "Enter")
        try await HomeScreenTests.shows(terminal, "◆ 1")
        try terminal.type("s")
        try await HomeScreenTests.shows(terminal, "p play · t title · n notes · u purpose · d discard · Enter keep")
        try terminal.type("t", "C-u", "Morning", "Enter")
        try await HomeScreenTests.shows(terminal, "Updated \"Morning\".")
        try terminal.type("Enter")
        try await HomeScreenTests.shows(terminal, "Kept \"Morning\".")
        #expect(HomeScreenTests.isSelected("Morning", terminal.styledScreen), "selected:\n\(terminal.screen)")
        let saved = try #require(try library.recordings().first)
        #expect(saved.title == "Morning" && saved.duration >= 1)
        #expect(saved.markers.map(\.label) == ["go"] && saved.markers[0].seconds >= 1 && saved.markers[0].seconds <= saved.duration,
                "\(saved.markers)")

        try terminal.type("r")
        try await HomeScreenTests.shows(terminal, "● 0:01.")
        try terminal.type("m")
        try await HomeScreenTests.shows(terminal, "label:")
        try terminal.type("Enter")
        try await HomeScreenTests.shows(terminal, "◆ 1")
        kill(try #require(HomeScreenTests.child(of: terminal.shellID)), SIGTERM)
        #expect(try await offPool { terminal.waitForExit(within: 30) } == 0)
        #expect(try library.count() == 2)
        // The marker made before the SIGTERM is the clip's, saved with it
        let second = try #require(try library.recordings().first { $0.id != saved.id })
        #expect(second.markers.count == 1 && second.markers[0].label == nil, "\(second.markers)")
        let modes = try terminal.terminalModes()
        #expect(modes.before == modes.after)
    }
}
