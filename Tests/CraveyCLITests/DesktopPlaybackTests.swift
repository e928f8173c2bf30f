import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// The desktop's controls: `cravey play` on a private session bus (a real dbus-daemon), driven by
/// `playerctl` as the media keys and GNOME's controls drive it over MPRIS, with the sink's
/// monitor as the witness of what was heard; and the notification a play without a terminal shows,
/// seen by a notification server of the tests' own.
// Serialized, and run alone by scripts/test (the name ends in PlaybackTests): they play in real time.
@Suite("the desktop's media controls", .temporaryFiles, .serialized)
struct DesktopPlaybackTests {
    /// A library holding one clip made of `tones`, and its id.
    func library(_ tones: [(frequency: Double, seconds: Double)], title: String = "Breathe") async throws -> (folder: URL, id: String) {
        let folder = temporaryLibrary()
        let imported = try await Cravey.run(["import", "--library", folder.path, "--title", title, try await Fixture.tones(tones).path])
        #expect(imported.status == 0, "\(imported.error)")
        return (folder, imported.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Starts `cravey` with `arguments`, its stdout and stderr to a file, under `wrapper` if one is
    /// given (`setsid --wait`: no controlling terminal, as from a launcher or a keyboard shortcut).
    func start(_ arguments: [String], environment: [String: String], under wrapper: [String] = []) throws -> (TestProcess, output: URL) {
        let output = temporaryFolder().appendingPathComponent("out-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: wrapper.isEmpty ? Cravey.executable : "/usr/bin/env")
        process.arguments = wrapper.isEmpty ? arguments : wrapper + [Cravey.executable] + arguments
        process.environment = Cravey.environment(environment)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = process.standardOutput
        try process.run()
        return (process, output)
    }

    func wait(_ process: TestProcess) async throws {
        try await offPool { process.waitForExit() }
    }

    /// The play's events so far, as `--json` prints them into `output` (stderr's lines, a line
    /// still being written and the last line, the play's report, left out).
    static func events(in output: URL) -> [PlaybackEvent] {
        ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n")
            .compactMap { try? JSONDecoder().decode(PlaybackEvent.self, from: Data($0.utf8)) }
    }

    @Test("playerctl -p cravey reads the metadata and position, pauses, resumes, seeks and stops a playing clip, and the sink agrees; PlaybackStatus and Seeked are signalled")
    func playerctlDrivesThePlay() async throws {
        // Given a clip of 3 s at 440 Hz then 3 s at 880 Hz, playing on a private session bus
        let bus = try await DesktopSession()
        let sink = try await VirtualMicrophone()
        let (folder, id) = try await library([(440, 3), (880, 3)])
        let monitor = try bus.start("dbus-monitor", ["--session", "type='signal',path='/org/mpris/MediaPlayer2'"],
                                    output: bus.folder.appendingPathComponent("monitor.txt"))
        defer { kill(monitor.processIdentifier, SIGKILL) }
        let capture = try await SinkCapture.start(sink: sink.sinkName)
        let (play, output) = try start(["play", id, "--library", folder.path, "--device", sink.sinkName, "--no-count", "--json"],
                                       environment: bus.environment)
        #expect(try await bus.waitForPlayer())

        // When playerctl reads it, pauses it once the sink's monitor has carried the tone for half
        // a second (a null sink's monitor may hand out nothing for a new stream's first second),
        // for 7 of the play's events (0.7 s), resumes, seeks to 4 s once half a second more has
        // played, and stops it once the play says 5 s: each step waits for the play's own events
        // (its --json lines) or the sink's
        let metadata = try await bus.playerctl(["-p", "cravey", "metadata"]).output
        #expect(try await poll(within: 5, every: 0.01) { capture.recorded > 0 })
        #expect(try await poll(within: 30, every: 0.01) { try capture.heard() >= 0.5 })
        let pausing = capture.recorded
        #expect(try await bus.playerctl(["-p", "cravey", "play-pause"]).status == 0)
        #expect(try await poll(within: 10, every: 0.01) { Self.events(in: output).last?.state == .paused })
        let paused = try await bus.playerctl(["-p", "cravey", "status"]).output
        let pausedAt = Double(try await bus.playerctl(["-p", "cravey", "position"]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        let seen = Self.events(in: output).count
        #expect(try await poll(within: 10, every: 0.01) { Self.events(in: output).dropFirst(seen).filter { $0.state == .paused }.count >= 7 })
        let stillAt = Double(try await bus.playerctl(["-p", "cravey", "position"]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        let resuming = capture.recorded
        #expect(try await bus.playerctl(["-p", "cravey", "play-pause"]).status == 0)
        #expect(try await poll(within: 10, every: 0.01) {
            Self.events(in: output).last.map { $0.state == .playing && $0.position >= pausedAt + 0.5 } ?? false
        })
        #expect(try await bus.playerctl(["-p", "cravey", "position", "4"]).status == 0)
        #expect(try await poll(within: 10, every: 0.01) { (Self.events(in: output).last?.position ?? 0) >= 5 })
        #expect(try await bus.playerctl(["-p", "cravey", "stop"]).status == 0)
        try await wait(play)
        let samples = try await offPool { try capture.stop() }

        // Then playerctl saw the clip (not its title: the desktop is discreet by default), the
        // pause held the position, and the play stopped near 5 s
        #expect(metadata.contains("xesam:title               Playing your clip") && !metadata.contains("Breathe"), "\(metadata)")
        #expect(metadata.contains("mpris:length              6000000"), "\(metadata)")
        #expect(metadata.contains("mpris:trackid             '/org/cravey/recording/\(id.replacingOccurrences(of: "-", with: "_"))'"), "\(metadata)")
        #expect(paused.contains("Paused"), "\(paused)")
        #expect(pausedAt > 0.3 && pausedAt < 3 && abs(stillAt - pausedAt) < 0.05, "\(pausedAt) then \(stillAt)")
        #expect(play.terminationStatus == 0)
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        let last = try #require(lines.last)
        let final = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let report = try #require(final["play"] as? [String: Any])
        #expect(report["completed"] as? Bool == false)
        #expect(abs((report["position"] as? Double ?? 0) - 5) < 0.5, "\(report)")
        // And the sink played 440 Hz up to the pause, was quiet through it (from 150 ms after the
        // request), then played 880 Hz from 4 s for about a second, and 440 Hz never after it
        let rate = Witness.analysisRate
        #expect(pausing > Int(0.02 * rate) && resuming < samples.count, "\(pausing) \(resuming) of \(samples.count)")
        if pausing > Int(0.02 * rate) && resuming < samples.count {
            #expect(samples[(pausing - Int(0.02 * rate))..<pausing].contains { abs($0) > 0.1 }, "the tone was not playing at the pause")
            #expect(samples[(pausing + Int(0.15 * rate))..<resuming].allSatisfy { abs($0) < 0.01 }, "not quiet while paused")
        }
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        let seeked = sounding.filter { $0.frequency == 880 }
        #expect(seeked.count == 1 && abs((seeked.first?.duration ?? 0) - 1) < 0.35, "\(sounding)")
        #expect(sounding.last?.frequency == 880 && sounding.filter { $0.frequency == 440 }.reduce(0) { $0 + $1.duration } < 2.5, "\(sounding)")
        // And the bus saw the status change and the seek
        kill(monitor.processIdentifier, SIGKILL)
        let signals = try String(contentsOf: bus.folder.appendingPathComponent("monitor.txt"), encoding: .utf8)
        #expect(signals.contains("string \"Paused\"") && signals.contains("string \"Playing\""), "\(signals)")
        #expect(signals.contains("member=Seeked") && signals.contains("int64 4000000"), "\(signals)")
    }

    @Test("a second play at once owns org.mpris.MediaPlayer2.cravey.instance<pid>; both answer")
    func secondInstance() async throws {
        // Given two plays of one clip at once on one bus
        let bus = try await DesktopSession()
        let sink = try await VirtualMicrophone()
        let (folder, id) = try await library([(440, 4)])
        let arguments = ["play", id, "--library", folder.path, "--device", sink.sinkName, "--no-count"]
        let (first, _) = try start(arguments, environment: bus.environment)
        #expect(try await bus.waitForPlayer())
        let (second, _) = try start(arguments, environment: bus.environment)

        // Then the second is cravey.instance<its pid>, and stopping each ends it
        #expect(try await bus.waitForPlayer("cravey.instance\(second.processIdentifier)"))
        #expect(try await bus.playerctl(["-p", "cravey.instance\(second.processIdentifier)", "stop"]).status == 0)
        try await wait(second)
        #expect(try await bus.playerctl(["-p", "cravey", "stop"]).status == 0)
        try await wait(first)
        #expect(first.terminationStatus == 0 && second.terminationStatus == 0)
    }

    @Test("with desktop.show-titles, a video's Metadata carries mpris:artUrl, the file:// URL of its thumbnail in the library")
    func videoArtwork() async throws {
        // Given a video in the library, playing on a private bus
        let bus = try await DesktopSession()
        let sink = try await VirtualMicrophone()
        let folder = temporaryLibrary()
        let imported = try await Cravey.run(["import", "--library", folder.path, try await Fixture.video(seconds: 3).path, "--json"])
        let row = try #require(try JSONSerialization.jsonObject(with: Data(imported.output.utf8)) as? [String: Any])
        let thumbnail = try #require(row["thumbnailPath"] as? String)
        let (play, _) = try start(["play", try #require(row["id"] as? String), "--library", folder.path, "--device", sink.sinkName, "--no-count"],
                                  environment: bus.environment.merging(try Cravey.settings("desktop.show-titles = true\n")) { $1 })
        #expect(try await bus.waitForPlayer())

        // When the desktop asks for its picture
        let art = try await bus.playerctl(["-p", "cravey", "metadata", "mpris:artUrl"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await bus.playerctl(["-p", "cravey", "stop"])
        try await wait(play)

        // Then it is the thumbnail's file URL, and the file is there
        let url = try #require(URL(string: art))
        #expect(url.isFileURL && url.path.hasSuffix(thumbnail), "\(art)")
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test("a play without a terminal shows a notification saying a clip plays (not which) and how to stop it; its Stop button stops the play, and the notification is closed")
    func notificationWithoutATerminal() async throws {
        // Given a notification server and a 10 s clip
        let bus = try await DesktopSession()
        let sink = try await VirtualMicrophone()
        let (server, log) = try await bus.startNotificationServer()
        defer { kill(server.processIdentifier, SIGKILL) }
        let (folder, id) = try await library([(440, 10)], title: "Stay strong")

        // When Quick Play starts it with no terminal (as a keyboard shortcut does), and the
        // notification's Stop button is pressed
        let (play, output) = try start(["quickplay", "1", "--library", folder.path, "--device", sink.sinkName],
                                       environment: bus.environment, under: ["setsid", "--wait"])
        let shown = try await poll(within: 10, every: 0.05) { try DesktopSession.calls(in: log).contains { $0["call"] as? String == "Notify" } }
        #expect(shown)
        let started = Date()
        #expect(try await bus.run("dbus-send", ["--session", "--dest=org.freedesktop.Notifications", "--type=method_call",
                                                "/org/freedesktop/Notifications", "org.cravey.Test.PressStop"]).status == 0)
        try await wait(play)

        // Then the notification said a clip plays (not its title) and the way to stop it, the
        // play stopped at once (and was counted), and the notification was closed
        let calls = try DesktopSession.calls(in: log)
        let notify = try #require(calls.first)
        #expect(notify["summary"] as? String == "cravey")
        #expect((notify["body"] as? String ?? "").contains("Playing your clip") && (notify["body"] as? String ?? "").contains("Stop"), "\(notify)")
        #expect(!"\(notify)".contains("Stay strong"), "\(notify)")
        #expect(notify["actions"] as? [String] == ["stop", "Stop"] && notify["desktopEntry"] as? String == "cravey")
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(play.terminationStatus == 0)
        let said = try String(contentsOf: output, encoding: .utf8)
        #expect(said.contains("stopped at") && said.contains("counted: 1 play"), "\(said)")
        #expect(calls.last?["call"] as? String == "CloseNotification" && calls.last?["id"] as? Int == notify["id"] as? Int, "\(calls)")
        _ = id
    }

    @Test("a play on a terminal shows no notification, and still serves the media controls")
    func noNotificationOnATerminal() async throws {
        // Given a notification server and a 1 s clip
        let bus = try await DesktopSession()
        let sink = try await VirtualMicrophone()
        let (server, log) = try await bus.startNotificationServer()
        defer { kill(server.processIdentifier, SIGKILL) }
        let (folder, id) = try await library([(440, 1)])

        // When it plays in a terminal window
        let terminal = try PseudoTerminal("/usr/bin/setsid", ["--ctty", "--wait", Cravey.executable, "play", id, "--library", folder.path,
                                                             "--device", sink.sinkName, "--no-count"],
                                          environment: Cravey.environment(bus.environment))
        #expect(try await bus.waitForPlayer())
        _ = try await offPool { terminal.waitForExit() }

        // Then it played to the end and nothing was notified
        #expect(terminal.process.terminationStatus == 0)
        #expect(try DesktopSession.calls(in: log).isEmpty)
    }

    @Test("without a session bus, or with a bus that is gone, a play works as before, with no error and no notification; a tcp: bus address is never used (no network socket, strace)")
    func noBus() async throws {
        // Given a 1 s clip
        let sink = try await VirtualMicrophone()
        let (folder, id) = try await library([(440, 1)])
        let arguments = ["play", id, "--library", folder.path, "--device", sink.sinkName, "--no-count"]
        let empty = temporaryFolder().path
        let goneEnvironment = try await DesktopSession().environment

        // When it plays without a bus, with a bus whose daemon is gone, and with a tcp: address, detached
        for environment in [["DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": empty], goneEnvironment,
                            ["DBUS_SESSION_BUS_ADDRESS": "tcp:host=127.0.0.1,port=9", "XDG_RUNTIME_DIR": empty]] {
            let log = temporaryFolder().appendingPathComponent("strace-\(UUID().uuidString).txt")
            let (play, output) = try start(arguments, environment: environment, under: ["strace", "-f", "-e", "trace=socket,connect", "-o", log.path])
            try await wait(play)
            // Then it played to the end, said nothing about a bus, and opened no network socket
            let said = try String(contentsOf: output, encoding: .utf8)
            #expect(play.terminationStatus == 0 && said.contains("to the end") && !said.lowercased().contains("bus"), "\(environment): \(said)")
            let calls = try String(contentsOf: log, encoding: .utf8)
            #expect(calls.contains("AF_UNIX") && !calls.contains("AF_INET"), "\(environment): \(calls)")
        }
    }

    @Test("MPRIS's Rate is the play's speed: play --speed 1.2 reads 1.2 (MinimumRate 0.5, MaximumRate 2); setting it to 1.5 plays at 1.5x, 3 is held at 2")
    func rateIsTheSpeed() async throws {
        // Given a 10 s tone playing at 1.2x on a private session bus
        let bus = try await DesktopSession()
        let sink = try await VirtualMicrophone()
        let (folder, id) = try await library([(440, 10)])
        let (play, output) = try start(["play", id, "--library", folder.path, "--device", sink.sinkName, "--no-count", "--json",
                                        "--speed", "1.2"], environment: bus.environment)
        #expect(try await bus.waitForPlayer())
        let properties = ["--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.cravey", "/org/mpris/MediaPlayer2"]
        func get(_ name: String) async throws -> String {
            try await bus.run("dbus-send", properties + ["org.freedesktop.DBus.Properties.Get", "string:org.mpris.MediaPlayer2.Player", "string:\(name)"]).output
        }

        // Then Rate, MinimumRate and MaximumRate say so
        let (rate, minimum, maximum) = (try await get("Rate"), try await get("MinimumRate"), try await get("MaximumRate"))
        #expect(rate.contains("double 1.2") && minimum.contains("double 0.5") && maximum.contains("double 2"), "\(rate) \(minimum) \(maximum)")

        // When Rate is set to 1.5, then to 3
        let set = try await bus.run("dbus-send", properties + ["org.freedesktop.DBus.Properties.Set", "string:org.mpris.MediaPlayer2.Player",
                                                       "string:Rate", "variant:double:1.5"])
        #expect(set.status == 0, "\(set.error)")
        #expect(try await poll(within: 10, every: 0.01) { Self.events(in: output).last?.speed == 1.5 })
        #expect(try await get("Rate").contains("double 1.5"))
        _ = try await bus.run("dbus-send", properties + ["org.freedesktop.DBus.Properties.Set", "string:org.mpris.MediaPlayer2.Player",
                                                 "string:Rate", "variant:double:3"])
        #expect(try await poll(within: 10, every: 0.01) { Self.events(in: output).last?.speed == 2 })

        // Then the play goes on at that speed, and stops as asked
        #expect(try await bus.playerctl(["-p", "cravey", "stop"]).status == 0)
        try await wait(play)
        #expect(play.terminationStatus == 0)
    }
}
