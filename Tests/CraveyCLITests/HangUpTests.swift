import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// The terminal window closes while a command runs: its controlling terminal hangs up and the
/// kernel sends SIGHUP. Each command ends as Ctrl-C ends it.
@Suite("A closed terminal", .temporaryFiles)
struct HangUpTests {
    /// Runs `cravey arguments` with a new terminal as its controlling terminal, as a shell in a
    /// terminal window runs it (`setsid --ctty`: closing the terminal sends it SIGHUP).
    func onTerminal(_ arguments: [String]) throws -> PseudoTerminal {
        try PseudoTerminal("/usr/bin/setsid", ["--ctty", "--wait", Cravey.executable] + arguments, environment: environment)
    }

    /// The tests' environment, with the live meter and progress bar on (no NO_COLOR).
    var environment: [String: String] {
        var environment = Cravey.environment()
        environment.removeValue(forKey: "NO_COLOR")
        return environment
    }

    func shown(_ terminal: PseudoTerminal, _ text: String) async throws -> Bool {
        try await offPool { terminal.waitUntilShown(within: 20) { $0.contains(text) } }
    }

    @Test("closing the terminal during a recording saves the clip with its title, as Ctrl-C does")
    func record() async throws {
        // Given a recording on a terminal, a tone playing into its microphone
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own
        let library = temporaryLibrary()
        let terminal = try onTerminal(["record", "--title", "Said at night", "--purpose", "craving",
                                       "--library", library.path, "--device", microphone.monitor])
        #expect(try await shown(terminal, "0:01."), "\(terminal.output)")

        // When the terminal is closed
        terminal.hangUp()
        try await offPool { terminal.process.waitForExit() }

        // Then the clip is in the library with its title and purpose, and nothing is left half-made
        let opened = try RecordingLibrary(at: library)
        let recordings = try opened.recordings()
        #expect(recordings.count == 1, "exit \(terminal.process.terminationStatus)")
        #expect(recordings.first?.title == "Said at night" && recordings.first?.purpose == .craving)
        #expect((recordings.first?.duration ?? 0) >= 1)
        #expect(try opened.doctor.examine(repair: false, deleteUnplayable: false).isHealthy)
    }

    @Test("closing the terminal during a play counts the play, not completed")
    func play() async throws {
        // Given a 40 s clip playing on a terminal
        let sink = try await VirtualMicrophone()
        let library = temporaryLibrary()
        let imported = try await Cravey.run(["import", "--library", library.path, try await Fixture.tones([(440, 40)]).path])
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let terminal = try onTerminal(["play", id, "--library", library.path, "--device", sink.sinkName])

        // When the terminal is closed once it plays (on a thread of the test's own, so a busy
        // task pool cannot delay the hang-up)
        let played = try await offPool { () -> Bool in
            let shown = terminal.waitUntilShown(within: 20) { $0.contains("0:01 [") }
            terminal.hangUp()
            terminal.process.waitForExit()
            return shown
        }
        #expect(played, "\(terminal.output)")

        // Then one play is counted, stopped long before the end
        let opened = try RecordingLibrary(at: library)
        let plays = try opened.plays(of: try #require(RecordingID(id)))
        #expect(plays.count == 1 && plays.first?.completed == false, "\(plays)")
        #expect((plays.first?.secondsListened ?? 99) < 10)
        #expect(try opened.recording(matching: id).playCount == 1)
    }

    @Test("SIGHUP during a play on a terminal that stays open puts the terminal's mode back and counts the play")
    func playModeRestored() async throws {
        // Given a 40 s clip playing under a shell on a terminal, which shows the mode before and after
        let sink = try await VirtualMicrophone()
        let library = temporaryLibrary()
        let imported = try await Cravey.run(["import", "--library", library.path, try await Fixture.tones([(440, 40)]).path])
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let script = "stty -g; '\(Cravey.executable)' play \(id) --library '\(library.path)' --device \(sink.sinkName); echo \"status $?\"; stty -g"
        let terminal = try PseudoTerminal("/usr/bin/setsid", ["--ctty", "--wait", "/bin/sh", "-c", script],
                                          environment: environment)
        #expect(try await shown(terminal, "0:01 ["), "\(terminal.output)")

        // When the player alone gets SIGHUP
        let shell = terminal.process.processIdentifier
        let player = try #require(try await offPool { try descendant(of: shell, named: "cravey-media") })
        kill(player, SIGHUP)

        // Then it ended with 0, the mode is as before, and the play is counted
        let output = try await offPool { terminal.waitForExit() }
        #expect(output.contains("status 0"), "\(output)")
        let modes = output.split(whereSeparator: \.isNewline).map(String.init).filter { $0.filter { $0 == ":" }.count > 10 }
        #expect(modes.count == 2 && modes.first == modes.last, "\(modes)")
        #expect(try RecordingLibrary(at: library).recording(matching: id).playCount == 1)
    }

    @Test("closing the terminal during an import stores nothing (exit 130)")
    func importing() async throws {
        // Given a long import on a terminal
        let library = temporaryLibrary()
        let long = try await Fixture.make("wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=600:sample_rate=16000"])
        let terminal = try onTerminal(["import", long.path, "--library", library.path])

        // When the terminal is closed once the import is writing (on a thread of the test's own,
        // so a busy task pool cannot let the import finish first)
        let importing = try await offPool { () -> Bool in
            let started = waitUntil(within: 20, every: 0.01) {
                (try? FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Recordings").path))?
                    .contains { $0.hasSuffix(".importing") } == true
            }
            terminal.hangUp()
            terminal.process.waitForExit()
            return started
        }
        #expect(importing, "the import never started writing")

        // Then the import stopped with 130 and left nothing
        #expect(terminal.process.terminationStatus == 130)
        let opened = try RecordingLibrary(at: library)
        #expect(try opened.count() == 0 && opened.store.storedFiles().isEmpty, "\(opened.store.storedFiles())")
    }
}
