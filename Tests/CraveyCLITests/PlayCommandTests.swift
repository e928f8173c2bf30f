import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey play` and `cravey quickplay N`, run as the built binaries against the private sound
/// server, with the sink's monitor recorded as the witness.
// Serialized: each test plays in real time (see PlaybackTests).
@Suite("cravey play", .temporaryFiles, .serialized)
struct PlayCommandTests {
    /// A library holding `clips` (each imported from a file), and a sink of its own.
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

    /// The JSON objects `--json` printed, one a line.
    func jsonLines(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test("play --json plays the tone to the sink for its duration, reports at least 10 times a second, and counts one completed play")
    func playsAndCounts() async throws {
        // Given a library with a 2 s tone
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.tones([(440, 2)])])
        let capture = try await SinkCapture.start(sink: sink.sinkName)

        // When it is played with --json
        let result = try await Cravey.run(["play", ids[0], "--library", library.url.path,
                                           "--device", sink.sinkName, "--json"])
        let samples = try await offPool { try capture.stop() }

        // Then the sink played 2 s of 440 Hz, and stdout has the events and the play
        #expect(result.status == 0, "\(result.error)")
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        #expect(sounding.count == 1 && abs((sounding.first?.duration ?? 0) - 2) <= 0.2, "\(sounding)")
        let lines = try jsonLines(result.output)
        let events = lines.dropLast()
        #expect(events.filter { $0["state"] as? String == "playing" }.count >= 20, "\(events.count) events")
        #expect(events.last?["state"] as? String == "completed" && events.last?["duration"] as? Double == 2)
        let play = try #require(lines.last?["play"] as? [String: Any])
        #expect(play["counted"] as? Bool == true && play["completed"] as? Bool == true && play["playCount"] as? Int == 1)
        #expect(try playCount(library, ids[0]) == 1)
        let event = try #require(try library.plays(of: RecordingID(ids[0])!).first)
        #expect(event.completed && abs(event.secondsListened - 2) <= 0.2)
    }

    @Test("--skip-silence jumps over a clip's 4 s of quiet (its stored waveform says where): the sink hears the two tones about half a second apart, and the play says what it skipped")
    func skipsSilence() async throws {
        // Given a clip of 1.5 s of 440 Hz, 4 s of silence and 1.5 s of 880 Hz, imported (which
        // stores its waveform)
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.tones([(440, 1.5), (0, 4), (880, 1.5)])])
        let capture = try await SinkCapture.start(sink: sink.sinkName)

        // When it plays with --skip-silence
        let result = try await Cravey.run(["play", ids[0], "--library", library.url.path, "--device", sink.sinkName,
                                           "--json", "--skip-silence", "--no-count"])
        let samples = try await offPool { try capture.stop() }

        // Then both tones were heard whole, the quiet between them cut to the kept margins (and
        // a seek's start), and the play reports the 3.5 s skipped
        #expect(result.status == 0, "\(result.error)")
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        #expect(sounding.map(\.frequency) == [440, 880], "\(sounding)")
        #expect(sounding.allSatisfy { abs($0.duration - 1.5) <= 0.2 }, "\(sounding)")
        if sounding.count == 2 { #expect(sounding[1].start - sounding[0].end < 1.2, "\(sounding)") }
        let play = try #require(try jsonLines(result.output).last?["play"] as? [String: Any])
        let skipped = try #require(play["silenceSkipped"] as? Double)
        #expect(skipped > 3 && skipped <= 3.5, "\(play)")
        #expect(play["completed"] as? Bool == true)
    }

    @Test("--no-count counts nothing; a missing file exits 66 and a dead sound server 69 within 2 s, counting nothing")
    func countsNothing() async throws {
        // Given a library with two clips, the second one's file gone
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.tones([(440, 0.5)]), try await Fixture.tones([(440, 0.5)])])
        let path = library.url.path
        try FileManager.default.removeItem(at: library.fileURL(try library.recording(matching: ids[1]).filePath))

        // When each is played
        let preview = try await Cravey.run(["play", ids[0], "--library", path, "--device", sink.sinkName, "--no-count"])
        let missing = try await Cravey.run(["play", ids[1], "--library", path, "--device", sink.sinkName])
        let started = ContinuousClock.now
        let noServer = try await Cravey.run(["play", ids[0], "--library", path],
                                            environment: ["PULSE_SERVER": "unix:/nonexistent/cravey-test/native"])
        let noServerTime = (ContinuousClock.now - started) / .seconds(1)

        // Then nothing is counted
        #expect(preview.status == 0 && preview.error.contains("not counted"), "\(preview.error)")
        #expect(missing.status == 66 && missing.error.contains("missing") && missing.error.contains("cravey doctor"), "\(missing.error)")
        #expect(noServer.status == 69 && noServer.error.contains("No sound server") && noServer.error.contains("scripts/pulse start"),
                "\(noServer.error)")
        #expect(noServerTime < 2, "took \(noServerTime) s")
        #expect(try playCount(library, ids[0]) == 0 && playCount(library, ids[1]) == 0)
    }

    @Test("quickplay N plays the Nth most played; an empty library exits 66 and says how to record the first clip")
    func quickPlay() async throws {
        // Given an empty library
        let sink = try await VirtualMicrophone()
        let empty = try await Cravey.run(["--library", temporaryLibrary().path, "quickplay", "1"])
        #expect(empty.status == 66 && empty.error.contains("cravey record"), "\(empty.error)")

        // And a library of three clips with scripted plays: B 3 times, C twice, A once
        var clips: [URL] = []
        for _ in 0..<3 { clips.append(try await Fixture.tones([(440, 0.3)])) }
        let (library, ids) = try await library(clips)
        for (index, plays) in [(1, 3), (2, 2), (0, 1)] {
            for _ in 0..<plays { try library.countPlay(of: RecordingID(ids[index])!, secondsListened: 1, completed: true) }
        }

        // When Quick Play's second clip is played
        let path = library.url.path
        let second = try await Cravey.run(["quickplay", "2", "--library", path, "--device", sink.sinkName, "--json"])
        let beyond = try await Cravey.run(["quickplay", "3", "--library", temporaryLibrary().path, "--device", sink.sinkName])

        // Then C was played and counted, and now leads: as many plays as B, played last
        #expect(second.status == 0, "\(second.error)")
        let play = try #require(try jsonLines(second.output).last?["play"] as? [String: Any])
        #expect(play["id"] as? String == ids[2] && play["playCount"] as? Int == 3)
        let order = try library.quickPlay().map { $0.id.description }
        #expect(order == [ids[2], ids[1], ids[0]])
        #expect(beyond.status == 66)
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

    @Test("MP3, Opus, FLAC and WAV files imported into the library play their tone for their duration", arguments: [
        ("mp3", ["-c:a", "libmp3lame"]), ("opus", ["-c:a", "libopus"]), ("flac", ["-c:a", "flac"]), ("wav", ["-c:a", "pcm_s16le"]),
    ])
    func formatsPlay(ext: String, codec: [String]) async throws {
        // Given a 1.5 s tone in that format, imported
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([try await Fixture.tones([(440, 1.5)], ext: ext, codec: codec, channels: 2)])
        let capture = try await SinkCapture.start(sink: sink.sinkName)

        // When played
        let result = try await Cravey.run(["play", ids[0], "--library", library.url.path, "--device", sink.sinkName])
        let samples = try await offPool { try capture.stop() }

        // Then the sink played 1.5 s of 440 Hz
        #expect(result.status == 0, "\(result.error)")
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        #expect(sounding.count == 1 && sounding.first?.frequency == 440, "\(sounding)")
        #expect(abs((sounding.first?.duration ?? 0) - 1.5) <= 0.2, "\(sounding)")
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

    @Test("devices lists the sinks beside the sources, adding kind and isDefaultSink to the JSON")
    func devicesListSinks() async throws {
        // Given a sink of the test's own
        let sink = try await VirtualMicrophone()

        // When the devices are listed
        let json = try await Cravey.run(["devices", "--json"])
        let table = try await Cravey.run(["devices"])

        // Then the sink is there as a sink, its monitor as a source, and one default of each
        #expect(json.status == 0, "\(json.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        let sinkRow = try #require(rows.first { $0["name"] as? String == sink.sinkName })
        #expect(sinkRow["kind"] as? String == "sink" && sinkRow["isDefault"] as? Bool == false)
        let monitor = try #require(rows.first { $0["name"] as? String == sink.monitor })
        #expect(monitor["kind"] as? String == "source" && monitor["isMonitor"] as? Bool == true)
        #expect(rows.filter { $0["isDefault"] as? Bool == true }.count == 1)
        #expect(rows.filter { $0["isDefaultSink"] as? Bool == true }.count == 1)
        #expect(table.output.contains(sink.sinkName) && table.output.hasPrefix("DEFAULT  KIND"))
    }

    @Test("devices lists the cameras after the sources and sinks: here none, which it says, with the sound devices unchanged")
    func devicesListCameras() async throws {
        // Given this machine, which has no camera
        let cameras = try Cameras.list()

        // When the devices are listed
        let json = try await Cravey.run(["devices", "--json"])
        let table = try await Cravey.run(["devices"])

        // Then the JSON holds a row of kind "camera" for each camera (none here), and the table
        // the sound devices, then the cameras or "No cameras found" on stderr
        #expect(json.status == 0 && table.status == 0, "\(json.error) \(table.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        let cameraRows = rows.filter { $0["kind"] as? String == "camera" }
        #expect(cameraRows.compactMap { $0["name"] as? String } == cameras.map(\.path))
        #expect(rows.allSatisfy { $0["kind"] as? String == "camera" || $0["modes"] == nil })
        #expect(table.output.hasPrefix("DEFAULT  KIND"))
        if cameras.isEmpty {
            #expect(table.error.contains("No cameras found."), "\(table.error)")
            #expect(!table.output.contains("CAMERA"))
        } else {
            #expect(table.output.contains("\nCAMERA") && cameras.allSatisfy { table.output.contains($0.path) })
        }
    }
}
