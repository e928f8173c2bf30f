import Foundation

/// A private session bus for one test, as `dbus-run-session` gives a program: a real
/// `dbus-daemon` on a socket of its own, the environment that points at it, and the desktop's
/// tools (`playerctl`, `dbus-monitor`, a notification server) run against it.
public final class DesktopSession: Sendable {
    public let folder: URL
    /// `unix:path=...`: what DBUS_SESSION_BUS_ADDRESS says.
    public let address: String
    private let daemon: TestProcess

    /// Starts the bus (off the cooperative pool: the start is awaited by reading what it prints).
    public init() async throws {
        let folder = temporaryFolder().appendingPathComponent("bus-\(UUID().uuidString.prefix(8))")
        let address = "unix:path=\(folder.appendingPathComponent("bus").path)"
        (self.folder, self.address) = (folder, address)
        daemon = try await offPool { try Self.startDaemon(in: folder, at: address) }
    }

    private static func startDaemon(in folder: URL, at address: String) throws -> TestProcess {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let daemon = TestProcess()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        // --print-address: the daemon writes its address once it listens; the read waits for it.
        daemon.arguments = ["--session", "--nofork", "--nopidfile", "--address=\(address)", "--print-address=1"]
        let printed = Pipe()
        daemon.standardOutput = printed
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        let line = String(decoding: printed.fileHandleForReading.availableData, as: UTF8.self)
        guard line.hasPrefix("unix:"), FileManager.default.fileExists(atPath: folder.appendingPathComponent("bus").path) else {
            kill(daemon.processIdentifier, SIGKILL)
            throw TestFailure("dbus-daemon did not start: it printed \(line.debugDescription)")
        }
        return daemon
    }

    // Not waited for: the last reference is often dropped on the cooperative pool, and the
    // process's own thread reaps it (``TestProcess``).
    deinit { kill(daemon.processIdentifier, SIGKILL) }

    /// The environment for `cravey` on this bus: the bus's address, and no runtime folder of the
    /// machine's own.
    public var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": address, "XDG_RUNTIME_DIR": folder.path]
    }

    /// Runs `command` to the end on this bus.
    public func run(_ command: String, _ arguments: [String]) async throws -> CommandResult {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(self.environment) { $1 }
        return try await CraveyTestSupport.run(command, arguments, environment: environment)
    }

    /// Runs `playerctl` on this bus.
    public func playerctl(_ arguments: [String]) async throws -> CommandResult {
        try await run("playerctl", arguments)
    }

    /// Waits until `playerctl -l` lists `player` (true), or 10 s have passed.
    public func waitForPlayer(_ player: String = "cravey") async throws -> Bool {
        try await poll(within: 10, every: 0.05) { [self] in
            var environment = ProcessInfo.processInfo.environment
            environment.merge(self.environment) { $1 }
            return try runBlocking("playerctl", ["-l"], environment: environment).output.split(separator: "\n").contains { $0 == player }
        }
    }

    /// Starts a program on this bus (`dbus-monitor`, the notification server), its stdout to `output`.
    public func start(_ command: String, _ arguments: [String], output: URL) throws -> TestProcess {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment.merge(self.environment) { $1 }
        process.environment = environment
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Starts the test notification server (`Tests/Desktop/notification-server.py`) and waits
    /// until it owns its name; its calls are logged, one JSON object a line, in the file returned.
    public func startNotificationServer() async throws -> (server: TestProcess, log: URL) {
        let log = folder.appendingPathComponent("notifications.jsonl")
        let script = TestSoundServer.packageRoot.appendingPathComponent("Tests/Desktop/notification-server.py").path
        // Debian's own Python, where python3-dbus and python3-gi are.
        let server = try start("/usr/bin/python3", [script, log.path], output: folder.appendingPathComponent("server.out"))
        let ready = try await poll(within: 10, every: 0.05) {
            (try? String(contentsOf: log, encoding: .utf8))?.contains("ready") == true
        }
        guard ready else { throw TestFailure("the notification server did not start") }
        return (server, log)
    }

    /// The calls the notification server logged.
    public static func calls(in log: URL) throws -> [[String: Any]] {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["call"] as? String != "ready" }
    }
}
