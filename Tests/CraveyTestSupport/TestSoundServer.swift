import Foundation
import Synchronization

/// The PulseAudio server the tests record from: the one `scripts/test` started (`PULSE_SERVER`),
/// or, when the tests run without it, the private server `scripts/pulse start` brings up.
public enum TestSoundServer {
    /// The package's root folder.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The server address; starts the private server once per test process if needed.
    public static let address: String = {
        if let server = ProcessInfo.processInfo.environment["PULSE_SERVER"], !server.isEmpty,
           (try? runBlocking("pactl", ["--server=\(server)", "info"]).status) == 0 {
            return server
        }
        let started = try! runBlocking(packageRoot.appendingPathComponent("scripts/pulse").path, ["start"])
        precondition(started.status == 0, "scripts/pulse start failed: \(started.error)")
        let server = started.output.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "export PULSE_SERVER=", with: "")
        setenv("PULSE_SERVER", server, 1)
        return server
    }()

    /// `pactl` with `arguments` against the test server, off the cooperative pool.
    public static func pactl(_ arguments: [String]) async throws -> CommandResult {
        try await offPool { try pactlBlocking(arguments) }
    }

    /// ``pactl(_:)`` on the calling thread. A connection the server refused is tried again, for
    /// up to 10 s: PulseAudio listens with a backlog of 5 (`listen(fd, 5)`, fixed in its
    /// socket-server.c), and the libpulse client's non-blocking `connect` is refused outright,
    /// not queued, while 6 connections wait for a server that has not had a core to accept them:
    /// the parallel phase's burst of clients did that once (ci52), and a server stopped with
    /// SIGSTOP does it to the 7th of 9 `pactl info` at once.
    public static func pactlBlocking(_ arguments: [String]) throws -> CommandResult {
        var result = try runBlocking("pactl", arguments)
        let deadline = Date().addingTimeInterval(10)
        while result.status != 0, result.error.contains("Connection refused"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            result = try runBlocking("pactl", arguments)
        }
        return result
    }
}

/// A null sink of its own for one test: play tones into it, record from its monitor. Tests running
/// in parallel each get one, so their audio never mixes.
public final class VirtualMicrophone: Sendable {
    public let sinkName: String
    private let moduleIndex: String

    public init() async throws {
        _ = try await offPool { TestSoundServer.address }
        sinkName = "test_mic_" + UUID().uuidString.prefix(8).lowercased()
        let loaded = try await TestSoundServer.pactl(["load-module", "module-null-sink", "sink_name=\(sinkName)", "rate=48000", "channels=1"])
        guard loaded.status == 0 else { throw TestFailure("pactl load-module failed: \(loaded.error)") }
        moduleIndex = loaded.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // Unloaded on a thread of its own: the last reference is often dropped on the cooperative pool.
    deinit { Tone.unload(moduleIndex) }

    /// The source to record from.
    public var monitor: String { sinkName + ".monitor" }

    /// Starts a sine tone of `frequency` (amplitude 0.5) playing into the sink until the returned
    /// tone is stopped, and returns once the sink is running, so the audio is reaching the monitor.
    ///
    /// The sound server generates it itself (PulseAudio's `module-sine`): no client process has to
    /// keep feeding the sink, so a machine loaded by tests running in parallel cannot starve the
    /// tone into seconds of silence, as it could a `paplay` of a file.
    public func play(frequency: Double) async throws -> Tone {
        let loaded = try await TestSoundServer.pactl(["load-module", "module-sine", "sink=\(sinkName)", "frequency=\(Int(frequency))"])
        let tone: Tone
        if loaded.status == 0 {
            tone = Tone(module: loaded.output.trimmingCharacters(in: .whitespacesAndNewlines))
        } else {
            // PipeWire's PulseAudio server has no module-sine: a client plays 10 minutes of the
            // tone instead, at module-sine's amplitude of 0.5 (lavfi's sine is 1/8, so 4 times it).
            // That client, not the server, is what a loaded machine can starve: when it misses
            // the server's deadline the sink mixes digital silence (-120 dBFS on the monitor,
            // for 0.1-0.4 s in ci31 and ci42). So it keeps a second of the tone queued in the
            // server (the server's real-time thread plays from that, whoever gets the CPU) and
            // runs at a real-time priority where it may; and `-v` makes it say each underrun,
            // which `Tone.underruns` counts, so a test that hears a dropout can tell the
            // fixture's from the recorder's.
            let file = temporaryFolder().appendingPathComponent("tone-\(Int(frequency)).s16")
            let made = try await run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=48000:duration=600",
                                                        "-af", "volume=4", "-f", "s16le", "-ac", "1", file.path])
            guard made.status == 0 else { throw TestFailure("pactl load-module module-sine failed (\(loaded.error)), and so did ffmpeg: \(made.error)") }
            let log = temporaryFolder().appendingPathComponent("tone-\(Int(frequency))-\(UUID().uuidString.prefix(8)).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let player = TestProcess()
            player.executableURL = URL(fileURLWithPath: "/bin/sh")
            player.arguments = ["-c", #"if chrt -f 20 true 2>/dev/null; then exec chrt -f 20 "$@"; else exec "$@"; fi"#, "sh",
                                "pacat", "-v", "--playback", "--raw", "--device=\(sinkName)", "--format=s16le", "--rate=48000",
                                "--channels=1", "--latency-msec=1000", file.path]
            player.standardOutput = FileHandle.nullDevice
            player.standardError = try FileHandle(forWritingTo: log)
            try player.run()
            tone = Tone(player: player, log: log)
        }
        let sinkName = sinkName
        let running = try await poll(within: 10, every: 0.02) {
            let sinks = try TestSoundServer.pactlBlocking(["list", "short", "sinks"]).output
            return sinks.split(separator: "\n").contains { $0.contains(sinkName) && $0.contains("RUNNING") }
        }
        guard running else { throw TestFailure("the tone did not start playing into \(sinkName) within 10 s") }
        return tone
    }
}

/// A tone the sound server plays into a virtual microphone; it stops when stopped or dropped.
public final class Tone: Sendable {
    private let module: String?
    /// The client playing the tone where the server has no module-sine (PipeWire), and its
    /// verbose output.
    private let player: TestProcess?
    private let log: URL?
    private let stopped = Atomic(false)

    init(module: String) { (self.module, player, log) = (module, nil, nil) }
    init(player: TestProcess, log: URL) { (module, self.player, self.log) = (nil, player, log) }

    // On a thread of its own, as ``stop()``: the last reference is often dropped on the pool.
    deinit {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        if let module { Self.unload(module) }
        if let player { kill(player.processIdentifier, SIGKILL) }
    }

    /// How often the tone's own player ran dry so far (the sink mixed silence for it): 0 where
    /// the server plays the tone itself. A dropout heard while this is 0 is not the fixture's.
    public var underruns: Int {
        guard let log, let said = try? String(contentsOf: log, encoding: .utf8) else { return 0 }
        return said.components(separatedBy: "Stream underrun").count - 1
    }

    /// Stops the tone (unloads its module; a second call does nothing), off the cooperative
    /// pool: the server has stopped playing it once this returns.
    public func stop() async {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        if let module { _ = try? await TestSoundServer.pactl(["unload-module", module]) }
        if let player { kill(player.processIdentifier, SIGKILL) }
    }

    /// Unloads a module of the test sound server on a thread of its own, without waiting.
    static func unload(_ module: String) {
        Thread { _ = try? TestSoundServer.pactlBlocking(["unload-module", module]) }.start()
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The outcome of a finished command.
public struct CommandResult: Sendable {
    public var status: Int32
    public var output: String
    public var error: String
}

/// Runs blocking work (waiting for a process, a file, a server) on a thread of its own, so it
/// never holds one of the cooperative pool's few threads (tests run in parallel on them). The
/// work sees the test's `temporaryFolder()`.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let folder = TemporaryFolder.current
    return try await withCheckedThrowingContinuation { continuation in
        Thread { TemporaryFolder.$current.withValue(folder) { continuation.resume(with: Result { try body() }) } }.start()
    }
}

/// Checks `condition` every `interval` seconds until it holds (true) or `seconds` have passed
/// (false), on a thread of its own: polled on the busy cooperative pool, a test could wake past
/// its deadline without having looked again.
///
/// For a condition nothing announces (a file's size, a window's pixels, another program's
/// state); a change that comes as an event (a stream's, a latch, a process's exit) is awaited.
public func poll(within seconds: Double, every interval: Double,
                 _ condition: @escaping @Sendable () throws -> Bool) async throws -> Bool {
    try await offPool { try waitUntil(within: seconds, every: interval, condition) }
}

/// ``poll(within:every:_:)`` on the calling thread, which it blocks: for a thread of the test's
/// own (or a synchronous set-up), never a task. The tests' one sleeping loop.
public func waitUntil(within seconds: Double, every interval: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: interval)
    }
}

/// Waits for a process to end without holding a cooperative thread. When the waiting task is
/// cancelled (a test over its time limit) the process is killed (SIGKILL), so the wait ends:
/// a wait on a thread does not see the cancellation itself, and a test left waiting on a
/// process that never ends (a recording nobody stops) would hold the whole run forever (ci53).
public func exit(of process: TestProcess) async {
    let pid = process.processIdentifier
    await withTaskCancellationHandler {
        _ = try? await offPool { process.waitForExit() }
    } onCancel: {
        if pid > 0, process.isRunning { kill(pid, SIGKILL) }
    }
}

/// Runs a command to the end, looking it up on PATH when `command` has no slash, off the
/// cooperative pool (on a thread of its own, which waits for it).
@discardableResult
public func run(_ command: String, _ arguments: [String], environment: [String: String]? = nil,
                input: Data? = nil) async throws -> CommandResult {
    // Killed when the task is cancelled, as ``exit(of:)`` kills what it waits for.
    let started = StartedProcess()
    return try await withTaskCancellationHandler {
        try await offPool { try runBlocking(command, arguments, environment: environment, input: input, started: started) }
    } onCancel: {
        started.kill()
    }
}

/// The process a ``run(_:_:environment:input:)`` started, once it has: what its cancellation kills.
final class StartedProcess: Sendable {
    private let process = Mutex<TestProcess?>(nil)
    private let cancelled = Atomic(false)

    func started(_ child: TestProcess) {
        process.withLock { $0 = child }
        if cancelled.load(ordering: .relaxed) { kill() }
    }

    func kill() {
        cancelled.store(true, ordering: .relaxed)
        if let child = process.withLock({ $0 }), child.isRunning { Foundation.kill(child.processIdentifier, SIGKILL) }
    }
}

/// Puts an executable shell script of `text` at `url` (mode 0700), copied into place by cp rather
/// than written by this process: a file open for writing here is inherited by a process another
/// test starts meanwhile, and starting the script fails with ETXTBSY ("Text file busy") while that
/// process holds it (seen in a clean-clone run).
public func writeScript(_ text: String, to url: URL) async throws {
    let staged = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent)-\(UUID().uuidString.prefix(8))")
    try Data(text.utf8).write(to: staged)
    defer { try? FileManager.default.removeItem(at: staged) }
    try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: staged.path)
    let copied = try await run("cp", [staged.path, url.path])
    guard copied.status == 0 else { throw TestFailure("cp \(staged.path) \(url.path): \(copied.error)") }
}

/// ``run(_:_:environment:input:)`` on the calling thread, which it blocks until the command ends:
/// for a thread of the test's own (``offPool(_:)``, ``poll(within:every:_:)``), never a task.
@discardableResult
public func runBlocking(_ command: String, _ arguments: [String], environment: [String: String]? = nil,
                        input: Data? = nil) throws -> CommandResult {
    try runBlocking(command, arguments, environment: environment, input: input, started: nil)
}

func runBlocking(_ command: String, _ arguments: [String], environment: [String: String]?,
                 input: Data?, started: StartedProcess?) throws -> CommandResult {
    let process = TestProcess()
    if command.contains("/") {
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = arguments
    } else {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
    }
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe(), stdin = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = stdin
    try process.run()
    started?.started(process)
    if let input { stdin.fileHandleForWriting.write(input) }
    try stdin.fileHandleForWriting.close()
    // Read stderr on another thread while stdout is read here, so neither pipe fills up.
    let errorData = PipeReader(err.fileHandleForReading)
    let outputData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitForExit()
    return CommandResult(status: process.terminationStatus,
                         output: String(decoding: outputData, as: UTF8.self),
                         error: String(decoding: errorData.wait(), as: UTF8.self))
}

/// Reads a pipe to its end on a thread of its own, as the support's other blocking work runs
/// (``offPool(_:)``): a read blocked on Dispatch's global queue holds a thread of Dispatch's
/// limited pool for as long as the command runs, and the parallel phase runs hundreds at once.
// @unchecked Sendable: `data` is written once before `done` is signalled and read only after waiting on it.
final class PipeReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
