import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// A reminder fired as its systemd service fires it, `cravey remind --fire N`, on a private
/// session bus (a real dbus-daemon) with a notification server of the tests' own that presses
/// its buttons, and the sink's monitor as the witness of what was heard.
// Serialized, and run in a stream of scripts/test's real-time tests: it plays in real time.
@Suite("a reminder offered on the desktop", .temporaryFiles, .serialized)
struct ReminderPlaybackTests {
    /// A library holding one 2 s clip at 440 Hz titled "Stay strong", with a reminder at
    /// 18:30 every day (its units in a configuration folder of the test's own); its folder.
    func library() async throws -> URL {
        let folder = temporaryLibrary()
        let imported = try await Cravey.run(["import", "--library", folder.path, "--title", "Stay strong", try await Fixture.tones([(440, 2)]).path])
        #expect(imported.status == 0, "\(imported.error)")
        let added = try await Cravey.run(["remind", "add", "18:30", "--library", folder.path],
                                         environment: ["XDG_CONFIG_HOME": temporaryFolder().appendingPathComponent("config").path])
        #expect(added.status == 0, "\(added.error)")
        return folder
    }

    /// Starts `cravey remind --fire 1` on `bus`, playing to `sink`, as its service starts it (no
    /// terminal); its stdout and stderr go to the file returned.
    func fire(_ folder: URL, on environment: [String: String], _ more: [String] = []) throws -> (TestProcess, output: URL) {
        let output = temporaryFolder().appendingPathComponent("fire-\(UUID().uuidString.prefix(8)).txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait", Cravey.executable, "remind", "--fire", "1", "--library", folder.path] + more
        process.environment = Cravey.environment(environment)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = process.standardOutput
        try process.run()
        return (process, output)
    }

    /// Presses the button `action` of the last notification.
    func press(_ action: String, on bus: DesktopSession) async throws {
        let pressed = try await bus.run("dbus-send", ["--session", "--dest=org.freedesktop.Notifications", "--type=method_call",
                                                      "/org/freedesktop/Notifications", "org.cravey.Test.Press", "string:\(action)"])
        #expect(pressed.status == 0, "\(pressed.error)")
    }

    /// Waits until the server has logged `count` Notify calls.
    func notified(_ log: URL, count: Int = 1) async throws -> Bool {
        try await poll(within: 10, every: 0.02) { try DesktopSession.calls(in: log).filter { $0["call"] as? String == "Notify" }.count >= count }
    }

    @Test("remind --fire offers the clip discreetly with Play, In 10 minutes and Not today; Play plays it at the sink within half a second and counts it; fired again for the same time it offers nothing")
    func playPressed() async throws {
        // Given a notification server, a sink of the test's own, and a library with a reminder
        let bus = try await DesktopSession()
        let (server, log) = try await bus.startNotificationServer()
        defer { kill(server.processIdentifier, SIGKILL) }
        let sink = try await VirtualMicrophone()
        let folder = try await library()
        let capture = try await SinkCapture.start(sink: sink.sinkName)

        // When the reminder fires and its Play button is pressed
        let (firing, output) = try fire(folder, on: bus.environment.merging(["PULSE_SINK": sink.sinkName]) { $1 })
        #expect(try await notified(log))
        let pressedAt = capture.recorded
        try await press("play", on: bus)
        try await offPool { firing.waitForExit() }
        let samples = try await offPool { try capture.stop() }

        // Then the notification said a clip waits (not which), under "cravey", with the three buttons
        let said = try String(contentsOf: output, encoding: .utf8)
        #expect(firing.terminationStatus == 0, "\(said)")
        let notify = try #require(try DesktopSession.calls(in: log).first { $0["call"] as? String == "Notify" })
        #expect(notify["app"] as? String == "cravey" && notify["summary"] as? String == "cravey" && notify["body"] as? String == "Time for your clip", "\(notify)")
        #expect(notify["actions"] as? [String] == ["play", "Play", "later", "In 10 minutes", "not-today", "Not today"] && notify["desktopEntry"] as? String == "cravey")
        #expect(!"\(try DesktopSession.calls(in: log))".contains("Stay strong"))
        // And the sink played the clip, its first sound within half a second of the press, and the play was counted
        let first = try #require(samples[pressedAt...].firstIndex { abs($0) > 0.1 }, "nothing was heard")
        let latency = Double(first - pressedAt) / Witness.analysisRate
        #expect(latency < 0.5, "the first sound came \(latency) s after Play was pressed")
        let heard = ToneTrack.sounding(ToneTrack.spans(Array(samples[first...]), frequencies: [440]))
        #expect(heard.reduce(0) { $0 + $1.duration } > 1.5, "\(heard)")
        let info = try await Cravey.run(["list", "--json", "--library", folder.path])
        #expect(info.output.contains("\"playCount\" : 1"), "\(info.output)")

        // When it fires again for the same time
        let again = try await Cravey.run(["remind", "--fire", "1", "--library", folder.path], environment: bus.environment)

        // Then it offers nothing, and says why: the one question asked is the first (the play's
        // own notification, with its Stop button, beside it)
        #expect(again.status == 0 && again.error.contains("was offered for") && again.error.contains("already: nothing offered"), "\(again.error)")
        let notified = try DesktopSession.calls(in: log).filter { $0["call"] as? String == "Notify" }
        #expect(notified.filter { $0["body"] as? String == "Time for your clip" }.count == 1, "\(notified)")
        #expect(notified.count == 2 && notified.last?["actions"] as? [String] == ["stop", "Stop"], "\(notified)")
    }

    @Test("Not today quiets the reminder until tomorrow; In 10 minutes closes the question and waits to ask again; with desktop.show-titles the title is said")
    func laterAndNotToday() async throws {
        // Given a notification server and a library with a reminder
        let bus = try await DesktopSession()
        let (server, log) = try await bus.startNotificationServer()
        defer { kill(server.processIdentifier, SIGKILL) }
        let folder = try await library()

        // When it fires (titles shown) and In 10 minutes is pressed
        let (later, laterOutput) = try fire(folder, on: bus.environment.merging(try Cravey.settings("desktop.show-titles = true\n")) { $1 })
        defer { kill(later.processIdentifier, SIGKILL) }
        #expect(try await notified(log))
        try await press("later", on: bus)

        // Then the question is closed and it waits, saying so
        #expect(try await poll(within: 10, every: 0.02) { try DesktopSession.calls(in: log).last?["call"] as? String == "CloseNotification" })
        #expect(try await poll(within: 10, every: 0.02) { (try? String(contentsOf: laterOutput, encoding: .utf8))?.contains("asking again in 10 minutes") == true })
        #expect(later.isRunning)
        let calls = try DesktopSession.calls(in: log)
        #expect(calls.first?["body"] as? String == "Time for \"Stay strong\"", "\(calls)")
        kill(later.processIdentifier, SIGTERM)

        // When it is fired for another time (its mark of the time offered taken back by hand) and Not today is pressed
        let database = folder.appendingPathComponent("library.sqlite").path
        #expect(try await run("sqlite3", [database, "UPDATE reminder SET offeredFor = NULL"]).status == 0)
        let (notToday, output) = try fire(folder, on: bus.environment)
        #expect(try await notified(log, count: 2))
        try await press("not-today", on: bus)
        try await offPool { notToday.waitForExit() }

        // Then it is paused until the start of tomorrow, and the list says so
        let said = try String(contentsOf: output, encoding: .utf8)
        #expect(notToday.terminationStatus == 0 && said.contains("not today; quiet until"), "\(said)")
        let listed = try await Cravey.run(["remind", "--json", "--library", folder.path])
        let reminder = try #require((try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])?.first)
        let until = try #require((reminder["pausedUntil"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
        #expect(until == Calendar.current.startOfDay(for: Date().addingTimeInterval(86_400)), "\(reminder)")
    }

    @Test("In 10 minutes asks again then: with --later 2 the button says In 2 seconds, the question is closed, and asked again 2 s later with the same buttons")
    func laterAsksAgain() async throws {
        // Given a notification server and a library with a reminder
        let bus = try await DesktopSession()
        let (server, log) = try await bus.startNotificationServer()
        defer { kill(server.processIdentifier, SIGKILL) }
        let folder = try await library()

        // When it fires, asking again 2 s after a later, and that button is pressed
        let (firing, output) = try fire(folder, on: bus.environment, ["--later", "2"])
        defer { kill(firing.processIdentifier, SIGKILL) }
        #expect(try await notified(log))
        let asks: @Sendable () throws -> [[String: Any]] = { try DesktopSession.calls(in: log).filter { $0["call"] as? String == "Notify" } }
        #expect(try asks().first?["actions"] as? [String] == ["play", "Play", "later", "In 2 seconds", "not-today", "Not today"])
        try await press("later", on: bus)
        let pressed = ContinuousClock.now

        // Then the question is closed, it says when it asks again, and asks again then (not before)
        #expect(try await poll(within: 10, every: 0.02) { try DesktopSession.calls(in: log).last?["call"] as? String == "CloseNotification" })
        #expect(try await poll(within: 10, every: 0.02) { (try? String(contentsOf: output, encoding: .utf8))?.contains("asking again in 2 seconds") == true })
        #expect(try await notified(log, count: 2))
        let waited = pressed.duration(to: .now)
        #expect(waited >= .seconds(1.9) && waited < .seconds(6), "asked again \(waited) after the press")
        let again = try asks()
        #expect(again.count == 2 && again[1]["body"] as? String == "Time for your clip" && again[1]["actions"] as? [String] == again[0]["actions"] as? [String],
                "\(again)")

        // And a wait that is none is refused, naming the range, offering nothing
        let none = try await Cravey.run(["remind", "--fire", "1", "--later", "0", "--library", folder.path], environment: bus.environment)
        #expect(none.status == 64 && none.error.contains("give seconds from 1 to 86400"), "\(none.error)")

        // And the second question is answered as the first (Not today ends it)
        try await press("not-today", on: bus)
        try await offPool { firing.waitForExit() }
        let said = try String(contentsOf: output, encoding: .utf8)
        #expect(firing.terminationStatus == 0 && said.contains("not today; quiet until"), "\(said)")
    }

    @Test("a clip playing (or paused) is never interrupted: the question waits until the play ends")
    func waitsForAPlay() async throws {
        // Given a notification server, a library with a reminder, and a 3 s clip of it playing
        let bus = try await DesktopSession()
        let (server, log) = try await bus.startNotificationServer()
        defer { kill(server.processIdentifier, SIGKILL) }
        let sink = try await VirtualMicrophone()
        let folder = try await library()
        let id = try #require(try await Cravey.run(["list", "--json", "--library", folder.path]).output
            .components(separatedBy: "\"id\" : \"").dropFirst().first?.prefix(36)).description
        let play = TestProcess()
        play.executableURL = URL(fileURLWithPath: Cravey.executable)
        play.arguments = ["play", id, "--library", folder.path, "--device", sink.sinkName, "--no-count"]
        play.environment = Cravey.environment(bus.environment)
        play.standardInput = FileHandle.nullDevice
        play.standardOutput = FileHandle.nullDevice
        play.standardError = FileHandle.nullDevice
        try play.run()
        defer { kill(play.processIdentifier, SIGKILL) }
        #expect(try await bus.waitForPlayer())

        // When the reminder fires while it plays (paused, so that it is still there a while later)
        #expect(try await bus.playerctl(["-p", "cravey", "pause"]).status == 0)
        let (firing, _) = try fire(folder, on: bus.environment.merging(["PULSE_SINK": sink.sinkName]) { $1 })
        defer { kill(firing.processIdentifier, SIGKILL) }
        let asked: @Sendable () throws -> Bool = { try DesktopSession.calls(in: log).contains { $0["body"] as? String == "Time for your clip" } }

        // Then it does not ask while the play is there (it would within a few hundred
        // milliseconds), and asks once it has ended
        try await Task.sleep(for: .seconds(1.5))
        #expect(try !asked(), "asked while a clip played")
        #expect(play.isRunning)
        #expect(try await bus.playerctl(["-p", "cravey", "stop"]).status == 0)
        try await offPool { play.waitForExit() }
        #expect(try await poll(within: 10, every: 0.02) { try asked() })
        #expect(firing.isRunning)
    }

    @Test("a recording under way is never interrupted: the question waits until it is saved, and is asked then")
    func waitsForARecording() async throws {
        // Given a notification server, a library with a reminder, and a recording into it under way
        let bus = try await DesktopSession()
        let (server, log) = try await bus.startNotificationServer()
        defer { kill(server.processIdentifier, SIGKILL) }
        let microphone = try await VirtualMicrophone()
        let folder = try await library()
        let quiet = try Cravey.settings("transcribe.auto = false\n")
        let recording = try Cravey.start(["record", "--library", folder.path, "--device", microphone.monitor], environment: quiet)
        defer { kill(recording.processIdentifier, SIGKILL) }
        let recordings = folder.appendingPathComponent("Recordings")
        #expect(try await poll(within: 20, every: 0.02) {
            ((try? FileManager.default.contentsOfDirectory(atPath: recordings.path)) ?? []).contains { $0.hasSuffix(".partial") }
        })

        // When the reminder fires while it records
        let (firing, output) = try fire(folder, on: bus.environment.merging(quiet) { $1 })
        defer { kill(firing.processIdentifier, SIGKILL) }
        let asked: @Sendable () throws -> Bool = { try DesktopSession.calls(in: log).contains { $0["body"] as? String == "Time for your clip" } }

        // Then it does not ask while the recording goes on (it would within a few hundred
        // milliseconds), and asks once it is saved (Ctrl-C)
        try await Task.sleep(for: .seconds(1.5))
        #expect(try !asked(), "asked while a recording was under way: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
        #expect(recording.isRunning && firing.isRunning)
        kill(recording.processIdentifier, SIGINT)
        try await offPool { recording.waitForExit() }
        #expect(recording.terminationStatus == 0)
        #expect(try await poll(within: 10, every: 0.02) { try asked() }, "\((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
        #expect(try await Cravey.run(["list", "--json", "--library", folder.path]).output.components(separatedBy: "\"id\" :").count == 3)
    }

    @Test("with no notification server, or no session bus, remind --fire offers nothing, says why and exits 69")
    func nowhereToAsk() async throws {
        let folder = try await library()
        let bus = try await DesktopSession()
        let noServer = try await Cravey.run(["remind", "--fire", "1", "--library", folder.path], environment: bus.environment)
        #expect(noServer.status == 69 && noServer.error.contains("No notification server answered on the session bus"), "\(noServer.error)")
        let empty = temporaryFolder().path
        let noBus = try await Cravey.run(["remind", "--fire", "1", "--library", folder.path],
                                         environment: ["DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": empty])
        #expect(noBus.status == 69 && noBus.error.contains("There is no session bus"), "\(noBus.error)")
    }
}
