import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Every way out of a player, a recording and the look back, as a person at a terminal (or the
/// desktop) takes it: signals sent with `kill`, Ctrl-Z and `fg` in a shell with job control, a
/// crash, a terminal that only prints lines. The terminal must be left as it was found: its mode
/// (`stty -g`) the same before and after, and mouse reporting turned off again.
@Suite("Every way out", .temporaryFiles)
struct WaysOutTests {
    /// A library holding one clip of a 440 Hz tone `seconds` long; its folder and the clip's id.
    func toneLibrary(seconds: Double = 40) async throws -> (folder: URL, id: String) {
        let folder = temporaryLibrary()
        let imported = try await Cravey.run(["import", "--library", folder.path, try await Fixture.tones([(440, seconds)]).path])
        #expect(imported.status == 0, "\(imported.error)")
        return (folder, imported.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// A 40 s clip playing on a terminal (`play ID`, or `quickplay 1`) under `sh`, once it shows
    /// `ready` (by default its line at a second played); the sink is a null sink of the test's own.
    func playing(_ verb: String = "play", environment: [String: String] = TerminalShell.environment(), ready: String = "0:01 [")
        async throws -> (shell: TerminalShell, folder: URL, id: String, sink: VirtualMicrophone) {
        let sink = try await VirtualMicrophone()
        let (folder, id) = try await toneLibrary()
        let target = verb == "play" ? ["play", id] : ["quickplay", "1"]
        let shell = try TerminalShell(running: TerminalShell.command(target + ["--library", folder.path, "--device", sink.sinkName]),
                                      environment: environment)
        #expect(try await shell.shown(ready), "\(shell.terminal.output)")
        return (shell, folder, id, sink)
    }

    /// Then: `sh` printed `status`, the mode is as before, mouse reporting is off again.
    func expectLeftAsFound(_ shell: TerminalShell, status expected: Int32 = 0) async throws {
        let status = try await shell.status()
        let output = try await shell.exited()
        #expect(status == expected, "\(output.debugDescription)")
        #expect(shell.modes.count == 2 && shell.modes.first == shell.modes.last, "\(shell.modes)")
        #expect(shell.mouseReportingOff, "\(output.debugDescription)")
        #expect(shell.bracketedPasteOff, "\(output.debugDescription)")
    }

    /// The plays of the clip `id` in the library at `folder`.
    func plays(_ folder: URL, _ id: String) throws -> [PlayEvent] {
        try RecordingLibrary(at: folder).plays(of: try #require(RecordingID(id)))
    }

    /// A shell `name` with job control that has shown its terminal's mode, then started `cravey
    /// arguments`, once it shows `ready`.
    func jobShell(_ name: String, running arguments: [String], ready: String) async throws -> TerminalShell {
        let shell = try TerminalShell(interactive: name)
        shell.type("stty -g\n")
        shell.type(TerminalShell.command(arguments) + "\n")
        #expect(try await shell.shown(ready), "\(shell.terminal.output.debugDescription)")
        return shell
    }

    /// Types `keys` and expects the terminal to show `text` after them.
    func type(_ keys: String, in shell: TerminalShell, shows text: String, _ what: String = "",
              sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let mark = shell.mark
        shell.type(keys)
        #expect(try await shell.shown(text, after: mark), "\(what) \(shell.terminal.output.debugDescription)",
                sourceLocation: sourceLocation)
    }

    /// Then, after the shell shows its mode and exits: `count` modes shown, all the same.
    func expectShellLeft(_ shell: TerminalShell, modes count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        shell.type("stty -g; exit\n")
        _ = try await shell.exited()
        #expect(shell.modes.count == count && Set(shell.modes).count == 1, "\(shell.modes)", sourceLocation: sourceLocation)
    }

    @Test("kill -USR1 pauses a play on a terminal (play, quickplay 1) and again resumes it, as space does; q then stops and counts, the terminal left as found",
          arguments: ["play", "quickplay"])
    func usr1Pauses(verb: String) async throws {
        // Given a clip playing on a terminal
        let (shell, folder, id, _) = try await playing(verb)
        let player = try #require(try await shell.process(named: "cravey-media"))

        // When it gets SIGUSR1, twice
        var mark = shell.mark
        kill(player, SIGUSR1)
        #expect(try await shell.shown("❚❚", after: mark), "paused: \(shell.terminal.output.debugDescription)")
        mark = shell.mark
        kill(player, SIGUSR1)
        #expect(try await shell.shown("▶ ", after: mark), "resumed: \(shell.terminal.output.debugDescription)")
        shell.type("q")

        // Then it paused and resumed, and q stopped it: one play counted, the terminal as found
        try await expectLeftAsFound(shell)
        #expect(try plays(folder, id).count == 1)
    }

    @Test("SIGUSR2, SIGWINCH and SIGPIPE sent to a player on a terminal change nothing: it plays on, and q counts the play",
          arguments: [SIGUSR2, SIGWINCH, SIGPIPE])
    func unusedSignalsChangeNothing(signal: Int32) async throws {
        // Given a clip playing on a terminal
        let (shell, folder, id, _) = try await playing()
        let player = try #require(try await shell.process(named: "cravey-media"))

        // When it gets the signal, then plays two seconds more
        kill(player, signal)
        #expect(try await shell.shown("0:03 ["), "it plays on: \(shell.terminal.output.debugDescription)")
        shell.type("q")

        // Then q stopped it: one play counted, the terminal as found
        try await expectLeftAsFound(shell)
        #expect(try plays(folder, id).count == 1)
    }

    @Test("SIGQUIT (Ctrl-\\) and SIGTERM stop a play on a terminal as q does: counted, exit 0, the terminal left as found",
          arguments: [SIGQUIT, SIGTERM])
    func stoppingSignals(signal: Int32) async throws {
        let (shell, folder, id, _) = try await playing()
        kill(try #require(try await shell.process(named: "cravey-media")), signal)
        try await expectLeftAsFound(shell)
        #expect(try plays(folder, id).map(\.completed) == [false])
    }

    @Test("a player that crashes (a fault, or abort) gives the terminal back before it dies: the mode as before, mouse reporting off",
          arguments: [SIGSEGV, SIGABRT])
    func crashGivesTheTerminalBack(signal: Int32) async throws {
        // Given a clip playing on a terminal (without the Swift runtime's crash report, which takes
        // long to write with the player's threads running)
        let (shell, _, _, _) = try await playing(environment: TerminalShell.environment(["SWIFT_BACKTRACE": "enable=no"]))

        // When it crashes (the signal as a fault would send it)
        kill(try #require(try await shell.process(named: "cravey-media")), signal)

        // Then it died of the signal, the terminal as found
        try await expectLeftAsFound(shell, status: 128 + signal)
    }

    @Test("Ctrl-Z during a play gives the terminal back to the shell as it was, mouse reporting off; fg takes it again: keys work without Enter and q counts the play",
          arguments: ["bash", "dash"])
    func suspendPlay(shell name: String) async throws {
        // Given a shell with job control, its terminal's mode shown, then a clip playing in it
        let sink = try await VirtualMicrophone()
        let (folder, id) = try await toneLibrary()
        let shell = try await jobShell(name, running: ["play", id, "--library", folder.path, "--device", sink.sinkName], ready: "0:01")

        // When Ctrl-Z is typed, the mode shown again at the shell's prompt, then fg
        try await type("\u{1A}", in: shell, shows: "Stopped")
        #expect(shell.mouseReportingOff, "mouse reporting off at the shell: \(shell.terminal.output.debugDescription)")
        // (bash asks for bracketed paste itself at its prompt: what cravey asked is turned off before "Stopped")
        let stopped = shell.terminal.output.components(separatedBy: "Stopped").first ?? ""
        #expect(stopped.components(separatedBy: "\u{1B}[?2004h").last?.contains("\u{1B}[?2004l") ?? true,
                "bracketed paste off at the shell: \(shell.terminal.output.debugDescription)")
        shell.type("stty -g\n")
        #expect(try await shell.modesShown(2), "\(shell.terminal.output.debugDescription)")
        #expect(shell.modes.first == shell.modes.last, "the shell's mode while stopped: \(shell.modes)")
        try await type("fg\n", in: shell, shows: "\u{1B}[?1000h", "mouse reporting on again:")

        // Then space pauses without Enter, q stops; the play is counted and the mode is as before
        try await type(" ", in: shell, shows: "❚❚", "a key without Enter after fg:")
        try await type("q", in: shell, shows: "Played")
        try await expectShellLeft(shell, modes: 3)
        #expect(shell.mouseReportingOff)
        #expect(try plays(folder, id).count == 1)
    }

    @Test("Ctrl-Z during a recording gives the terminal back to the shell as it was; fg takes it again: space pauses without Enter, Ctrl-C saves the clip, the mode as before",
          arguments: ["bash", "dash"])
    func suspendRecord(shell name: String) async throws {
        // Given a shell with job control recording from a microphone playing a tone
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own
        let library = temporaryLibrary()
        let shell = try await jobShell(name, running: ["record", "--no-preview", "--title", "Kept across fg", "--library", library.path,
                                                        "--device", microphone.monitor], ready: "0:01.")

        // When Ctrl-Z is typed, the mode shown at the prompt, then fg
        try await type("\u{1A}", in: shell, shows: "Stopped")
        shell.type("stty -g\n")
        #expect(try await shell.modesShown(2), "\(shell.terminal.output.debugDescription)")
        #expect(shell.modes.first == shell.modes.last, "the shell's mode while stopped: \(shell.modes)")
        shell.type("fg\n")

        // Then space pauses without Enter, and Ctrl-C saves the clip
        try await type(" ", in: shell, shows: "Paused at", "a key without Enter after fg:")
        try await type("\u{03}", in: shell, shows: "Saved")
        try await expectShellLeft(shell, modes: 3)
        #expect(try await listed(library).map(\.title) == ["Kept across fg"])
    }

    @Test("at the look back, SIGUSR1, SIGUSR2 and SIGWINCH end nothing, and Ctrl-Z then fg give its keys back; the clip is kept with the title typed after")
    func lookBack() async throws {
        // Given a recording's look back in a shell with job control
        let microphone = try await VirtualMicrophone()
        let library = temporaryLibrary()
        let shell = try await jobShell("bash", running: ["record", "--seconds", "1", "--title", "Before", "--library", library.path,
                                                          "--device", microphone.monitor], ready: "Enter keep")
        let recorder = try #require(try await shell.process(named: "cravey-media"))

        // When it gets the signals a desktop may send, then Ctrl-Z and fg
        for signal in [SIGUSR1, SIGUSR2, SIGWINCH] { kill(recorder, signal) }
        try await type("\u{1A}", in: shell, shows: "Stopped")
        shell.type("fg\n")

        // Then t asks for the title without Enter, and the title typed is kept
        try await type("t", in: shell, shows: "Title", "a key without Enter after fg:")
        try await type("After fg\n", in: shell, shows: "Updated \"After fg\"")
        try await type("\n", in: shell, shows: "Kept \"After fg\"")
        try await expectShellLeft(shell, modes: 2)
        #expect(try await listed(library).map(\.title) == ["After fg"])
    }

    @Test("a recording on a terminal: SIGUSR2 and SIGWINCH change nothing, SIGQUIT (Ctrl-\\) saves the clip as Ctrl-C does, the terminal left as found")
    func recordSignals() async throws {
        let microphone = try await VirtualMicrophone()
        let library = temporaryLibrary()
        let shell = try TerminalShell(running: TerminalShell.command(["record", "--no-preview", "--title", "Quit", "--library", library.path,
                                                                      "--device", microphone.monitor]))
        #expect(try await shell.shown("0:01."), "\(shell.terminal.output.debugDescription)")
        let recorder = try #require(try await shell.process(named: "cravey-media"))
        kill(recorder, SIGUSR2)
        kill(recorder, SIGWINCH)
        #expect(try await shell.shown("0:02."), "it records on: \(shell.terminal.output.debugDescription)")
        kill(recorder, SIGQUIT)
        try await expectLeftAsFound(shell)
        #expect(try await listed(library).map(\.title) == ["Quit"])
    }

    @Test("a stored waveform without peaks: the player's line is the plain bar; the clip plays and q counts the play")
    func waveformWithoutPeaks() async throws {
        // Given a clip whose stored waveform holds no peaks (audiowaveform's header alone)
        let sink = try await VirtualMicrophone()
        let (folder, id) = try await toneLibrary()
        let file = folder.appendingPathComponent(ClipFiles(id: try #require(RecordingID(id)), type: .audio).file(.waveform)!.path)
        var header = Data()
        for field: Int32 in [2, 0, 48_000, 480, 0, 1] { withUnsafeBytes(of: field.littleEndian) { header.append(contentsOf: $0) } }
        try header.write(to: file)

        // When it plays on a terminal
        let shell = try TerminalShell(running: TerminalShell.command(["play", id, "--library", folder.path, "--device", sink.sinkName]))

        // Then its line is drawn, the plain bar, and q stops and counts the play
        #expect(try await shell.shown("0:01 [█"), "\(shell.terminal.output.debugDescription)")
        shell.type("q")
        try await expectLeftAsFound(shell)
        #expect(try plays(folder, id).count == 1)
    }

    @Test("TERM=dumb: play and record print plain lines, no escape code at all (no colour, no cursor movement, no mouse reporting); the player's keys still work")
    func dumbTerminal() async throws {
        // Given a terminal that only prints lines
        let dumb = TerminalShell.environment(["TERM": "dumb"])
        let (shell, folder, id, _) = try await playing(environment: dumb, ready: "q stop")

        // When a key pauses the play, another resumes it and q stops it
        try await type(" ", in: shell, shows: "Paused at")
        try await type(" ", in: shell, shows: "Playing from")
        shell.type("q")
        try await expectLeftAsFound(shell)
        #expect(try plays(folder, id).count == 1)

        // And a recording, with its look back
        let microphone = try await VirtualMicrophone()
        let library = temporaryLibrary()
        let recording = try Cravey.startOnTerminal(["record", "--seconds", "1", "--library", library.path, "--device", microphone.monitor],
                                                   environment: ["TERM": "dumb"])
        #expect(try await offPool { recording.waitUntilShown(within: 60) { $0.contains("Enter keep") } }, "\(recording.output.debugDescription)")
        recording.type("\n")
        let recorded = try await offPool { recording.waitForExit() }
        #expect(recording.process.terminationStatus == 0, "\(recorded.debugDescription)")

        // Then neither showed an escape code
        #expect(!shell.terminal.output.contains("\u{1B}"), "\(shell.terminal.output.debugDescription)")
        #expect(!recorded.contains("\u{1B}"), "\(recorded.debugDescription)")
    }

    @Test("a video's window whose X connection is lost (the window killed with xkill, the X server gone) ends as closing it does: the play stops, counted, exit 0, the terminal left as found",
          arguments: ["xkill", "server"])
    func windowConnectionLost(how: String) async throws {
        // Given a 20 s video playing in its window, from a terminal
        let display = try await VirtualDisplay()
        let sink = try await VirtualMicrophone()
        let folder = temporaryLibrary()
        let imported = try await Cravey.run(["import", "--library", folder.path, "--title", "Lose me",
                                             try await Fixture.video(seconds: 20, size: "160x120").path])
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let shell = try TerminalShell(running: TerminalShell.command(["play", id, "--library", folder.path, "--device", sink.sinkName]),
                                      environment: TerminalShell.environment(display.environment))
        let window = try #require(try await display.window(titled: "cravey"), "\(shell.terminal.output.debugDescription)")
        #expect(try await shell.shown("0:01 ["), "\(shell.terminal.output.debugDescription)")

        // When the window's connection to the X server is cut
        if how == "xkill" { try await display.killClient(of: window) } else { display.endServer() }

        // Then the play stopped and was counted, not completed, and says why; the terminal as found
        try await expectLeftAsFound(shell)
        #expect(shell.terminal.output.contains("connection to the display"), "\(shell.terminal.output.debugDescription)")
        let counted = try plays(folder, id)
        #expect(counted.count == 1 && counted.first?.completed == false && (counted.first?.secondsListened ?? 20) < 15, "\(counted)")
    }
}
