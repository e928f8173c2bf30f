import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// What cravey reads is checked where it enters, where a process is the point: a named pipe never
/// waited on, a backup killed while it writes, two restores at once, no sound server or display
/// over the network. (Rows, copies and backups holding values no clip has: in process,
/// CraveyCommandsTests' TrustNothingTests; deleted words leave every file, and a loudness no
/// measurement gives: CraveyCommandsTests' LibraryCommandTests and CraveyCoreTests'
/// LoudnessMeasurementTests.)
@Suite("Trust nothing it reads", .temporaryFiles)
struct TrustNothingTests {

    /// Runs cravey with `arguments`, killing it if it has not ended within `seconds`; nil then.
    func runWithin(_ seconds: Double, _ arguments: [String]) async throws -> (status: Int32, output: String)? {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: Cravey.executable)
        process.arguments = arguments
        process.environment = Cravey.environment()
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let output = temporaryFolder().appendingPathComponent("output-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        let ended = try await poll(within: seconds, every: 0.01) { !process.isRunning }
        if !ended {
            process.terminate()
            await exit(of: process)
            return nil
        }
        return (process.terminationStatus, try String(contentsOf: output, encoding: .utf8))
    }

    @Test("a named pipe where a clip's copy or waveform belongs is reported, never waited on: info, waveform, doctor and doctor --repair end, and an edit is not kept waiting")
    func pipesAreNotRead() async throws {
        // Given a clip whose copy and waveform are named pipes nobody writes to
        let library = try await Fixture.library(titles: ["Piped"])
        let clip = ClipFiles(try #require(try library.recordings().first))
        for part in [ClipFiles.Part.copy, .waveform] {
            let file = library.fileURL(try #require(clip.file(part)))
            try? FileManager.default.removeItem(at: file)
            try #require(mkfifo(file.path, 0o600) == 0)
        }
        let path = library.url.path, id = clip.id.uuid.uuidString

        // When it is shown, its waveform asked for, the library examined and repaired, and edited
        let info = try await runWithin(20, ["info", id, "--library", path])
        let waveform = try await runWithin(20, ["waveform", id, "--json", "--library", path])
        let doctor = try await runWithin(20, ["doctor", "--library", path])
        let repair = try await runWithin(20, ["doctor", "--repair", "--library", path])
        let edit = try await runWithin(20, ["edit", id, "--title", "Edited", "--library", path])

        // Then each ended, the doctor names both pipes, and they are still pipes
        #expect(info?.status == 0 && waveform != nil && edit != nil, "\(String(describing: info)) \(String(describing: waveform))")
        let seen = try #require(doctor)
        #expect(seen.status == 1 && seen.output.contains("\(clip.file(.copy)!.path) (a named pipe)")
                && seen.output.contains("\(clip.file(.waveform)!.path) (a named pipe)"), "\(seen.output)")
        #expect(repair?.status == 1, "\(String(describing: repair))")
        var info2 = stat()
        #expect(lstat(library.fileURL(clip.file(.copy)!).path, &info2) == 0 && info2.st_mode & S_IFMT == S_IFIFO)
    }

    @Test("a backup killed while it writes leaves nothing in the folder it was writing to, not even a hidden file")
    func killedBackupLeavesNothing() async throws {
        // Given a library holding 64 MB of media
        let library = try RecordingLibrary(at: temporaryLibrary())
        let clip = ClipFiles(id: RecordingID(), type: .audio)
        let media = try library.store.create(clip.media(.importing))
        let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        for _ in 0..<64 { try media.write(block) }
        try media.close()
        try library.store.write { tx in
            _ = try tx.save(clip.media(.importing), as: Recording(id: clip.id, type: .audio, title: "Big", duration: 1, filePath: "", fileSize: 0))
        }
        let output = temporaryFolder().appendingPathComponent("backups-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)

        // When its backup is stopped once it has written some of it, and killed
        let process = try Cravey.start(["backup", "--output", output.appendingPathComponent("clips.tar").path, "--library", library.url.path])
        let written = { @Sendable () -> Int in
            let io = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/io", encoding: .utf8)) ?? ""
            return io.split(separator: "\n").first { $0.hasPrefix("wchar:") }.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        }
        // (Polled: no event says what the process wrote so far.)
        let stoppedAt = Locked<Int?>(nil)
        _ = try await poll(within: 600, every: 0.0002) {
            guard process.isRunning else { return true }
            guard written() > 1 << 20 else { return false }
            kill(process.processIdentifier, SIGSTOP)
            stoppedAt.withLock { $0 = written() }
            return true
        }
        let midway = stoppedAt.withLock { $0.map { $0 < 48 << 20 } ?? false }
        kill(process.processIdentifier, SIGKILL)
        await exit(of: process)

        // Then nothing is there
        #expect(midway, "the backup was not stopped part way")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).isEmpty)
    }

    @Test("restore of a named pipe is refused at once (64), and two restores of one backup at the same time both end with each clip once")
    func restoreOddInputs() async throws {
        let library = try await Fixture.library(titles: ["One", "Two", "Three"])
        let archive = temporaryFolder().appendingPathComponent("backup.tar")
        let made = try await Cravey.run(["backup", "--output", archive.path, "--library", library.url.path])
        try #require(made.status == 0, "\(made.error)")
        let pipe = temporaryFolder().appendingPathComponent("backup.pipe")
        try #require(mkfifo(pipe.path, 0o600) == 0)
        let target = temporaryLibrary()
        let fromPipe = try await runWithin(20, ["restore", pipe.path, "--library", target.path])
        #expect(fromPipe?.status == 64, "\(String(describing: fromPipe))")

        async let first = Cravey.run(["restore", archive.path, "--library", target.path])
        async let second = Cravey.run(["restore", archive.path, "--library", target.path])
        let (a, b) = try await (first, second)
        #expect(a.status == 0 && b.status == 0, "\(a.error) | \(b.error)")
        #expect(Set(try RecordingLibrary(at: target).recordings().map(\.title)) == ["One", "Two", "Three"])
        let doctor = try await Cravey.run(["doctor", "--library", target.path])
        #expect(doctor.status == 0, "\(doctor.output)")
    }

    @Test("a sound server or display named over TCP (PULSE_SERVER=tcp:..., DISPLAY=localhost:10.0 as ssh -X sets) is refused (69) naming the variable, before any network socket is opened (strace); the network.allow-servers setting lets it be tried")
    func noNetworkServers() async throws {
        // Given a clip
        let folder = temporaryLibrary()
        let imported = try await Cravey.run(["import", try await Fixture.audio(seconds: 1).path, "--library", folder.path])
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(imported.status == 0, "\(imported.error)")
        func traced(_ arguments: [String], _ environment: [String: String]) async throws -> (result: CommandResult, calls: String) {
            let log = temporaryFolder().appendingPathComponent("strace-\(UUID().uuidString).txt")
            let result = try await run("strace", ["-f", "-e", "trace=socket,connect", "-o", log.path, Cravey.executable] + arguments,
                                              environment: Cravey.environment(environment))
            return (result, try String(contentsOf: log, encoding: .utf8))
        }

        // When it plays, records and lists devices with a sound server or a display over TCP
        let play = ["play", id, "--no-count", "--library", folder.path]
        for (arguments, environment, variable) in [
            (play, ["PULSE_SERVER": "tcp:127.0.0.1:9"], "PULSE_SERVER"),
            (play, ["PULSE_SERVER": "{0123abcd}tcp6:[::1]:9 unix:/nowhere"], "PULSE_SERVER"),
            (play, ["PULSE_SERVER": "localhost"], "PULSE_SERVER"),
            (play, ["DISPLAY": "localhost:10.0"], "DISPLAY"),
            (["record", "--seconds", "1", "--library", folder.path], ["PULSE_SERVER": "tcp:127.0.0.1:9"], "PULSE_SERVER"),
            (["devices"], ["DISPLAY": "127.0.0.1:0"], "DISPLAY"),
        ] {
            let (result, calls) = try await traced(arguments, environment)

            // Then each is refused (69) naming the variable and its fix, with no network socket opened
            #expect(result.status == 69 && result.error.contains("\(variable)=") && result.error.contains("network.allow-servers"),
                    "\(arguments) \(environment): \(result.status) \(result.error)")
            #expect(!calls.contains("AF_INET"), "\(arguments) \(environment): \(calls)")
        }
        #expect(try RecordingLibrary(at: folder).count() == 1)

        // And with the setting, the server is tried (and, as nothing answers, no server is reachable)
        let settings = temporaryFolder()
        try FileManager.default.createDirectory(at: settings.appendingPathComponent("cravey"), withIntermediateDirectories: true)
        try Data("network.allow-servers = true\n".utf8).write(to: settings.appendingPathComponent("cravey/settings.toml"))
        let (allowed, calls) = try await traced(play, ["PULSE_SERVER": "tcp:127.0.0.1:9", "XDG_CONFIG_HOME": settings.path])
        #expect(allowed.status == 69 && allowed.error.contains("No sound server is reachable"), "\(allowed.error)")
        #expect(calls.contains("AF_INET"), "\(calls)")

        // And a local one, named as a socket's path, plays
        let local = try await Cravey.run(play, environment: ["PULSE_SERVER": TestSoundServer.address.replacingOccurrences(of: "unix:", with: "")])
        #expect(local.status == 0, "\(local.error)")
    }

    @Test("a server named by PulseAudio's client.conf (PULSE_CLIENTCONFIG, ~/.config/pulse), with localhost allowed there, or by the X display's PULSE_SERVER property is never used: play, record and devices reach the local server's socket only (strace, and a TCP listener nobody reaches), and with no local server they stop with 69 saying so")
    func noServerFromConfiguration() async throws {
        // Given a clip, a TCP port something listens on, and the local server reached only as
        // the client library finds it itself (no PULSE_SERVER: its runtime folder)
        let folder = temporaryLibrary()
        let imported = try await Cravey.run(["import", try await Fixture.audio(seconds: 1).path, "--library", folder.path])
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(imported.status == 0, "\(imported.error)")
        let listener = try TCPListener()
        let socket = TestSoundServer.address.replacingOccurrences(of: "unix:", with: "")
        try #require(socket.hasSuffix("/pulse/native"), "\(socket)")
        let runtime = String(socket.dropLast("/pulse/native".count))
        var local = Cravey.environment()
        local.removeValue(forKey: "PULSE_SERVER")
        local["XDG_RUNTIME_DIR"] = runtime
        func traced(_ arguments: [String], _ environment: [String: String]) async throws -> (result: CommandResult, calls: String) {
            let log = temporaryFolder().appendingPathComponent("strace-\(UUID().uuidString).txt")
            // Killed after 90 s: a client that reached the listener waits for an answer that never comes.
            let result = try await run("timeout", ["-s", "KILL", "90", "strace", "-f", "-s", "4096", "-e", "trace=connect", "-o", log.path, Cravey.executable] + arguments,
                                              environment: environment)
            return (result, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
        }

        // When the client configuration names that port over TCP, in a file PULSE_CLIENTCONFIG
        // names and in the person's own ~/.config/pulse/client.conf (with localhost allowed too),
        // and when the X display's root window names it
        let named = temporaryFolder().appendingPathComponent("client-\(UUID().uuidString.prefix(8)).conf")
        try Data("default-server = tcp:127.0.0.1:\(listener.port)\nautospawn = yes\n".utf8).write(to: named)
        var fromFile = local
        fromFile["PULSE_CLIENTCONFIG"] = named.path
        let home = temporaryFolder().appendingPathComponent("home-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: home.appendingPathComponent(".config/pulse"), withIntermediateDirectories: true)
        try Data("default-server = tcp4:localhost:\(listener.port)\nauto-connect-localhost = yes\n".utf8)
            .write(to: home.appendingPathComponent(".config/pulse/client.conf"))
        var fromHome = local
        fromHome["HOME"] = home.path
        fromHome.removeValue(forKey: "XDG_CONFIG_HOME")
        fromHome.removeValue(forKey: "XDG_RUNTIME_DIR")
        fromHome["PULSE_RUNTIME_PATH"] = runtime + "/pulse"
        // (A window manager keeps a client connected: an X server left with none resets, and
        // forgets its root window's properties.)
        let display = try await VirtualDisplay(windowManager: true)
        let property = try await run("xprop", ["-display", display.name, "-root", "-f", "PULSE_SERVER", "8s", "-set", "PULSE_SERVER",
                                                      "tcp:127.0.0.1:\(listener.port)"])
        let set = try await run("xprop", ["-display", display.name, "-root", "PULSE_SERVER"])
        try #require(property.status == 0 && set.output.contains("tcp:127.0.0.1:\(listener.port)"), "\(property.error) \(set.output)")
        // (The client library reads the display's properties only in an ssh session, as it
        // would be when the display is forwarded to this computer.)
        let fromDisplay = local.merging(display.environment) { $1 }.merging(["SSH_CONNECTION": "192.0.2.7 50022 192.0.2.1 22"]) { $1 }
        let before = try RecordingLibrary(at: folder).count()
        for (what, environment) in [("PULSE_CLIENTCONFIG", fromFile), ("~/.config/pulse/client.conf", fromHome), ("the X display", fromDisplay)] {
            for arguments in [["play", id, "--no-count", "--library", folder.path], ["record", "--seconds", "1", "--library", folder.path], ["devices"]] {
                let (result, calls) = try await traced(arguments, environment)

                // Then each works against the local server, and no TCP socket was connected
                #expect(result.status == 0, "\(what) \(arguments[0]): \(result.status) \(result.error)")
                #expect(!calls.contains("AF_INET"), "\(what) \(arguments[0]): \(calls)")
                #expect(calls.contains(socket), "\(what) \(arguments[0]): the local server's socket was not used: \(calls)")
                #expect(listener.connections() == 0, "\(what) \(arguments[0]): the listener was reached")
            }
        }
        #expect(try RecordingLibrary(at: folder).count() == before + 3)

        // And with no server on this computer, it stops with 69 saying so, reaching for no other
        guard !FileManager.default.fileExists(atPath: "/var/run/pulse/native") else { return }
        let empty = temporaryFolder().appendingPathComponent("runtime-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        var none = fromFile
        none["XDG_RUNTIME_DIR"] = empty.path
        for arguments in [["devices"], ["play", id, "--no-count", "--library", folder.path]] {
            let (result, calls) = try await traced(arguments, none)
            #expect(result.status == 69 && result.error.contains("No sound server is running on this computer")
                    && result.error.contains(empty.path + "/pulse/native") && result.error.contains("client.conf"), "\(arguments[0]): \(result.status) \(result.error)")
            #expect(!calls.contains("AF_INET"), "\(arguments[0]): \(calls)")
            #expect(listener.connections() == 0, "\(arguments[0]): the listener was reached")
        }
    }

}

/// A TCP socket listening on 127.0.0.1 at a port of the system's choosing, that accepts
/// nothing by itself: ``connections()`` counts the clients that reached it since it last looked.
final class TCPListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw TestFailure("bind or listen: \(errno)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    /// How many clients connected since the last call (each accepted and closed).
    func connections() -> Int {
        var count = 0
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return count }
            close(client)
            count += 1
        }
    }
}
