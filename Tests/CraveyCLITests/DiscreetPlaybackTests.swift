import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Discreet on shared screens: a clip's title never reaches the session bus (the media panel, the
/// lock screen, a notification) unless the desktop.show-titles setting says so, with
/// `dbus-monitor` as the witness of everything on a private bus; and a title given on the
/// command line is not left in `ps` for other users to read.
// Serialized, and run alone by scripts/test (the name ends in PlaybackTests): they play and record in real time.
@Suite("discreet on shared screens", .temporaryFiles, .serialized)
struct DiscreetPlaybackTests {
    static let title = "Don't buy weed today"

    /// Plays a 2 s clip titled ``title`` with no terminal (so a notification shows) on a private bus
    /// that `dbus-monitor` watches whole, reads its metadata with playerctl meanwhile, and returns
    /// everything the monitor saw and what playerctl read.
    func busTraffic(environment extra: [String: String]) async throws -> (traffic: String, metadata: String) {
        let bus = try await DesktopSession()
        let sink = try await VirtualMicrophone()
        let (server, _) = try await bus.startNotificationServer()
        defer { kill(server.processIdentifier, SIGKILL) }
        let monitorLog = bus.folder.appendingPathComponent("monitor.txt")
        let monitor = try bus.start("dbus-monitor", ["--session"], output: monitorLog)
        defer { kill(monitor.processIdentifier, SIGKILL) }
        let folder = temporaryLibrary()
        let imported = try await Cravey.run(["import", "--library", folder.path, "--title", Self.title, "--notes", "a secret note",
                                             "--purpose", "craving", try await Fixture.audio(seconds: 2).path])
        try #require(imported.status == 0, "\(imported.error)")

        let output = temporaryFolder().appendingPathComponent("play-\(UUID().uuidString.prefix(8)).txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let play = TestProcess()
        play.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        play.arguments = ["--wait", Cravey.executable, "quickplay", "1", "--library", folder.path, "--device", sink.sinkName, "--no-count"]
        play.environment = Cravey.environment(bus.environment.merging(extra) { $1 })
        play.standardInput = FileHandle.nullDevice
        play.standardOutput = try FileHandle(forWritingTo: output)
        play.standardError = play.standardOutput
        try play.run()
        #expect(try await bus.waitForPlayer())
        let metadata = try await bus.playerctl(["-p", "cravey", "metadata"]).output
        try await offPool { play.waitForExit() }
        let said = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(play.terminationStatus == 0, "\(said)")
        // What the bus carried, once the monitor has written the player's last message out: the
        // bus giving up its name when it went (NameOwnerChanged to no owner).
        let released = try await poll(within: 10, every: 0.02) {
            let traffic = (try? String(contentsOf: monitorLog, encoding: .utf8)) ?? ""
            return traffic.contains(/string "org\.mpris\.MediaPlayer2\.cravey"\s+string ":[0-9.]+"\s+string ""/)
        }
        #expect(released, "the monitor never saw the player leave the bus")
        return (try String(contentsOf: monitorLog, encoding: .utf8), metadata)
    }

    @Test("by default the title, notes and purpose of a playing clip appear nowhere on the bus (metadata, notification); with desktop.show-titles the title does")
    func busNeverCarriesTheTitle() async throws {
        // When a clip plays with the default settings
        let discreet = try await busTraffic(environment: [:])

        // Then the bus carried "Playing your clip", the notification was sent, and no word of the clip
        #expect(discreet.traffic.contains("member=Notify") && discreet.traffic.contains("Playing your clip"), "\(discreet.traffic.suffix(3000))")
        #expect(discreet.metadata.contains("xesam:title               Playing your clip"), "\(discreet.metadata)")
        for secret in [Self.title, "a secret note", "craving", "mpris:artUrl"] {
            #expect(!discreet.traffic.contains(secret), "\(secret) was on the bus")
        }

        // When it plays with the setting on, then the title is there (in the metadata and the notification)
        let shown = try await busTraffic(environment: try Cravey.settings("desktop.show-titles = true\n"))
        #expect(shown.metadata.contains("xesam:title               \(Self.title)"), "\(shown.metadata)")
        #expect(shown.traffic.contains("string \"Playing \\\"\(Self.title)\\\"\"") || shown.traffic.contains("Playing \"\(Self.title)\""),
                "\(shown.traffic.suffix(3000))")
    }

    /// What `ps -o args` and `/proc/PID/cmdline` show of process `pid`.
    func shown(_ pid: Int32) throws -> (ps: String, cmdline: String) {
        let ps = try runBlocking("ps", ["-o", "args=", "-p", String(pid)]).output
        let cmdline = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return (ps, cmdline)
    }

    @Test("a running `cravey record --title X` (handed to cravey-media) and `cravey-media record --title X` show neither X nor the notes in ps or /proc/PID/cmdline; the clip keeps them")
    func titleHiddenFromProcessList() async throws {
        let microphone = try await VirtualMicrophone()
        let media = URL(fileURLWithPath: Cravey.executable).deletingLastPathComponent().appendingPathComponent("cravey-media").path
        for executable in [Cravey.executable, media] {
            // Given a recording started with a title and notes
            let library = temporaryLibrary()
            let process = TestProcess()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["record", "--seconds", "3", "--title", Self.title, "--notes", "a secret note", "--no-preview",
                                 "--device", microphone.monitor, "--library", library.path]
            process.environment = Cravey.environment()
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()

            // When it runs (cravey-media parsing its command line), ps and /proc are read
            let running = try await poll(within: 10, every: 0.02) { [self] in
                let now = try shown(process.processIdentifier)
                return now.ps.contains("cravey-media record") && now.ps.contains("(hidden)")
            }
            let now = try await offPool { [self] in try shown(process.processIdentifier) }
            #expect(running, "\(now)")
            var seen: [(ps: String, cmdline: String)] = []
            // Time is the subject: the words stay hidden for as long as it runs, read every 0.2 s.
            for _ in 0..<5 {
                seen.append(try await offPool { [self] in try shown(process.processIdentifier) })
                try await Task.sleep(for: .milliseconds(200))
            }
            try await offPool { process.waitForExit() }

            // Then neither shows the title or the notes, and the clip has both
            for (ps, cmdline) in seen {
                #expect(!ps.contains(Self.title) && !ps.contains("secret") && ps.contains("--title (hidden) --notes (hidden)"), "\(executable): \(ps)")
                #expect(!cmdline.contains(Self.title) && !cmdline.contains("secret"), "\(executable): \(cmdline)")
            }
            #expect(process.terminationStatus == 0)
            let rows = try RecordingLibrary(at: library).recordings()
            #expect(rows.map(\.title) == [Self.title] && rows.first?.notes == "a secret note", "\(rows)")
        }
    }
}
