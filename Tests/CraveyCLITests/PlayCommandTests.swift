import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey play` as only a process of its own shows it, run as the built binaries against the
/// private sound server, with the sink's monitor recorded as the witness: 6 plays at once, signals,
/// a starved player, a terminal's keys, and what the environment decides (a dead sound server, a
/// video with no desktop), which a test cannot set for one command in process. (The plays, their
/// counts and reports, Quick Play and the device listings: CraveyCommandsTests' PlayCommandTests.)
// Serialized: each test plays in real time (see PlaybackTests).
@Suite("cravey play", .temporaryFiles, .serialized)
struct PlayCommandTests {
    /// A library holding `clips` (each imported from a file).
    func library(_ clips: [URL]) async throws -> (library: RecordingLibrary, ids: [String]) {
        let folder = temporaryLibrary()
        var ids: [String] = []
        for clip in clips {
            let imported = try await Cravey.run(["import", "--library", folder.path, clip.path])
            #expect(imported.status == 0, "\(imported.error)")
            ids.append(imported.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return (try RecordingLibrary(at: folder), ids)
    }

    func playCount(_ library: RecordingLibrary, _ id: String) throws -> Int {
        try library.recording(matching: id).playCount
    }

    @Test("a dead sound server exits 69 within 2 s, counting nothing (--no-count and a missing file: CraveyCommandsTests' PlayCommandTests)")
    func deadServer() async throws {
        // Given a library with a clip
        let (library, ids) = try await library([try await Fixture.tones([(440, 0.5)])])

        // When it is played with the sound server's socket named where there is none (the
        // environment is the process's)
        let started = ContinuousClock.now
        let noServer = try await Cravey.run(["play", ids[0], "--library", library.url.path],
                                            environment: ["PULSE_SERVER": "unix:/nonexistent/cravey-test/native"])
        let noServerTime = (ContinuousClock.now - started) / .seconds(1)

        // Then it says how to start one, soon, and counts nothing
        #expect(noServer.status == 69 && noServer.error.contains("No sound server") && noServer.error.contains("scripts/pulse start"),
                "\(noServer.error)")
        #expect(noServerTime < 2, "took \(noServerTime) s")
        #expect(try playCount(library, ids[0]) == 0)
    }

    @Test("6 processes playing one clip at once count exactly 6 plays")
    func concurrentPlays() async throws {
        // Given a library with one short clip
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.tones([(440, 0.5)])])
        let path = library.url.path

        // When 6 processes play it at once
        let results = try await withThrowingTaskGroup(of: CommandResult.self) { group in
            for _ in 0..<6 {
                group.addTask { try await Cravey.run(["play", ids[0], "--library", path, "--device", sink.sinkName]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        // Then every play counted once
        for result in results { #expect(result.status == 0, "\(result.error)") }
        #expect(try playCount(library, ids[0]) == 6)
        #expect(try library.plays(of: RecordingID(ids[0])!).count == 6)
    }

    @Test("not on a terminal, SIGTERM and SIGINT stop the playback and count it as not completed", arguments: [SIGTERM, SIGINT])
    func signalStops(signal: Int32) async throws {
        // Given a 10 s clip playing
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.tones([(440, 10)])])
        // A null sink alone with one stream has been seen to take it faster than real time; the
        // capture's stream of silence keeps it to the clock.
        let clock = try await SinkCapture.start(sink: sink.sinkName)
        defer { withExtendedLifetime(clock) {} }  // its deinit ends it, not waiting
        let process = try Cravey.start(["play", ids[0], "--library", library.url.path, "--device", sink.sinkName])
        // Once the sink has played half a second of it
        #expect(try await poll(within: 30, every: 0.01) { try clock.heard() >= 0.5 })

        // When signalled
        kill(process.processIdentifier, signal)
        await exit(of: process)

        // Then it stopped cleanly and counted a play that did not complete
        #expect(process.terminationStatus == 0)
        let event = try #require(try library.plays(of: RecordingID(ids[0])!).first)
        #expect(!event.completed && event.secondsListened > 0.3 && event.secondsListened < 5, "\(event)")
    }

    @Test("a player that gets no CPU for 0.6 s (SIGSTOP) is not heard: what is queued at the server covers it")
    func starvedPlayer() async throws {
        // Given a 6 s tone of which the sink has played 1.5 s
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.tones([(440, 6)])])
        let capture = try await SinkCapture.start(sink: sink.sinkName)
        let process = try Cravey.start(["play", ids[0], "--library", library.url.path,
                                        "--device", sink.sinkName, "--no-count"])
        #expect(try await poll(within: 30, every: 0.01) { try capture.heard() >= 1.5 })

        // When the player is stopped for 0.6 s, as a starved machine can hold its writer thread
        // (time is the subject: what is queued at the server must cover it)
        kill(process.processIdentifier, SIGSTOP)
        try await Task.sleep(for: .seconds(0.6))
        kill(process.processIdentifier, SIGCONT)
        await exit(of: process)
        let samples = try await offPool { try capture.stop() }

        // Then the sink played the tone for its 6 s in one piece
        #expect(process.terminationStatus == 0)
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440]))
        #expect(sounding.count == 1 && abs((sounding.first?.duration ?? 0) - 6) <= 0.2, "\(sounding)")
    }

    /// A 40 s clip playing on a terminal that is its shell's controlling terminal, as in a
    /// terminal window: Ctrl-C is a SIGINT to the foreground job, which the shell traps to live on
    /// and print the exit status, with `stty -g` before and after.
    struct TerminalPlay {
        let sink: VirtualMicrophone
        let clock: SinkCapture  // see signalStops; ended with the play, by its deinit
        let library: RecordingLibrary
        let id: String
        let terminal: PseudoTerminal

        func shown(_ text: String) async throws -> Bool {
            try await offPool { terminal.waitUntilShown(within: 10) { $0.contains(text) } }
        }

        /// True once one of `texts` shows after `mark` has.
        func shown(oneOf texts: [String], after mark: String) async throws -> Bool {
            try await offPool {
                terminal.waitUntilShown(within: 10) { text in
                    guard let marked = text.range(of: mark) else { return false }
                    return texts.contains { text[marked.upperBound...].contains($0) }
                }
            }
        }

        /// Then: status 0, the terminal mode as before, one play counted that did not complete.
        func expectStoppedAndCounted() async throws -> PlayEvent {
            let output = try await offPool { terminal.waitForExit() }
            #expect(output.contains("status 0"), "\(output)")
            let modes = output.split(whereSeparator: \.isNewline).map(String.init).filter { $0.filter { $0 == ":" }.count > 10 }
            #expect(modes.count == 2 && modes.first == modes.last, "\(modes)")
            let event = try #require(try library.plays(of: RecordingID(id)!).first)
            #expect(!event.completed, "\(event)")
            #expect(try library.recording(matching: id).playCount == 1)
            return event
        }
    }

    func playingOnTerminal() async throws -> TerminalPlay {
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.tones([(440, 40)])])
        let clock = try await SinkCapture.start(sink: sink.sinkName)
        var environment = Cravey.environment()
        environment.removeValue(forKey: "NO_COLOR")
        let script = "trap : INT; stty -g; '\(Cravey.executable)' play \(ids[0]) --library '\(library.url.path)' --device \(sink.sinkName); echo \"status $?\"; stty -g"
        let terminal = try PseudoTerminal("/usr/bin/setsid", ["--ctty", "--wait", "/bin/sh", "-c", script], environment: environment)
        return TerminalPlay(sink: sink, clock: clock, library: library, id: ids[0], terminal: terminal)
    }

    @Test("on a terminal: mouse reporting is asked for and a click on the bar jumps there; q stops and counts; the terminal mode is restored and mouse reporting turned off (space, the arrows, a digit and Home as values: PlayerStateTests, the key reader's bytes: TerminalPartsTests)")
    func terminalKeys() async throws {
        // Given a 40 s clip playing on a terminal
        let play = try await playingOnTerminal()
        let terminal = play.terminal
        #expect(try await play.shown("space pause"), "\(terminal.output)")
        #expect(try await play.shown("0:01 ["), "\(terminal.output)")

        // When the bar is clicked (xterm's SGR report of the left button) on its 28th of 30
        // columns: 90% of the clip (the bar starts at column 10: "▶  0:00 [")
        terminal.type("\u{1B}[<0;37;1M\u{1B}[<0;37;1m")
        #expect(try await play.shown(oneOf: ["0:36 [", "0:37 ["], after: "0:01 ["), "a click on the bar seeks there: \(terminal.output)")
        terminal.type("q")

        // Then it stopped with status 0, counted a play that did not complete, and the mode is as
        // before, mouse reporting turned off again
        _ = try await play.expectStoppedAndCounted()
        let output = terminal.output
        let on = try #require(output.range(of: "\u{1B}[?1000h\u{1B}[?1006h"), "mouse reporting asked for")
        #expect(output[on.upperBound...].contains("\u{1B}[?1000l\u{1B}[?1006l"), "and turned off")
    }

    @Test("on a terminal: m marks the moment, the label typed after it (q in it is the label's) is kept with Enter and the bar shows ◆; , goes back to the marker; the library has it")
    func terminalMarkers() async throws {
        // Given a 40 s clip playing on a terminal, at 0:01
        let play = try await playingOnTerminal()
        let terminal = play.terminal
        #expect(try await play.shown("m mark"), "\(terminal.output)")
        #expect(try await play.shown("0:01 ["), "\(terminal.output)")

        // When m is typed, then a label with a q in it and Enter
        terminal.type("m")
        #expect(try await play.shown("label: "), "\(terminal.output)")
        terminal.type("intro q\r")

        // Then the bar shows the marker, and , after a jump to 50% goes back to it
        terminal.type("5")
        #expect(try await play.shown("0:20 ["), "\(terminal.output)")
        #expect(try await play.shown(oneOf: ["◆"], after: "0:20 ["), "the bar shows the marker: \(terminal.output)")
        terminal.type(",")
        #expect(try await play.shown(oneOf: ["0:01 [", "0:02 [", "0:03 ["], after: "0:20 ["), ", goes back to the marker: \(terminal.output)")
        terminal.type("q")
        _ = try await play.expectStoppedAndCounted()
        let markers = try play.library.recording(matching: play.id).markers
        #expect(markers.count == 1 && markers.first?.label == "intro q" && (500...3000).contains(markers.first?.milliseconds ?? 0), "\(markers)")
    }

    @Test("on a terminal, Escape and Ctrl-C stop and count as q does; the terminal mode is restored",
          arguments: ["\u{1B}", "\u{03}"])
    func terminalStopKeys(key: String) async throws {
        // Given a 40 s clip playing on a terminal
        let play = try await playingOnTerminal()

        // When the key is typed once it plays
        #expect(try await play.shown("0:01 ["), "\(play.terminal.output)")
        play.terminal.type(key)

        // Then it stopped long before the end with status 0, counted a play that did not
        // complete, and the terminal mode is as before
        let event = try await play.expectStoppedAndCounted()
        #expect(event.secondsListened < 10, "\(event)")
    }

    @Test("a video plays its audio track and says so; --open without a desktop exits 69 and counts nothing")
    func video() async throws {
        // Given a library with a 1 s video
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.video(seconds: 1, size: "160x120")])
        let path = library.url.path

        // When it is played, and opened without a desktop
        let played = try await Cravey.run(["play", ids[0], "--library", path, "--device", sink.sinkName])
        let opened = try await Cravey.run(["play", ids[0], "--library", path, "--open"],
                                          environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])

        // Then the audio played and was counted; opening failed and counted nothing more
        #expect(played.status == 0 && played.error.contains("audio track"), "\(played.error)")
        #expect(opened.status == 69 && opened.error.contains("desktop"), "\(opened.error)")
        #expect(try playCount(library, ids[0]) == 1)
    }
}
