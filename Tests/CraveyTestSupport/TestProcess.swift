import CSpawn
import Foundation
import Synchronization

/// A child process of a test, started with `posix_spawn`: the part of Foundation's `Process` the
/// tests use, with its meaning (a `Pipe` or `FileHandle` for each standard stream, nil for
/// `/dev/null`, ``FileHandle/standardInput`` and the like inherited), and none of its run loop.
///
/// Foundation's `Process.run()` on Linux lists `/proc/self/fd` to close the test process's
/// descriptors in the child, and copies 256 bytes of each directory entry it reads, past the end
/// of glibc's buffer when an entry is its last: with a thousand descriptors open (the tests run
/// in parallel) the whole test process died in `Process.run()` of a bad pointer
/// (swift-corelibs-foundation#5472, in Swift 6.3.1). Here the child closes them itself
/// (`posix_spawn_file_actions_addclosefrom_np`, which CSpawn declares, as for the product's `ChildProcess`), and a thread of the child's own waits for its end.
// @unchecked Sendable: the launch settings are set before `run()` on one thread and only read
// after; what changes later (the end) is in `state`, behind its mutex.
public final class TestProcess: @unchecked Sendable {
    public var executableURL: URL?
    public var arguments: [String]?
    /// The child's environment; nil: this process's.
    public var environment: [String: String]?
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?
    /// Called on a thread of its own when the process has ended.
    public var terminationHandler: (@Sendable (TestProcess) -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    public private(set) var processIdentifier: Int32 = 0

    private struct State {
        var started = false
        var status: Int32?
        var handler: (@Sendable (TestProcess) -> Void)?
    }
    private let state = Mutex(State())
    private let ended = DispatchSemaphore(value: 0)

    public init() {}

    public var isRunning: Bool { state.withLock { $0.started && $0.status == nil } }

    /// The exit status, or the signal that ended the process (as `Process` gives it).
    public var terminationStatus: Int32 {
        guard let status = state.withLock({ $0.status }) else { preconditionFailure("the process has not ended") }
        return Self.exited(status) ? (status >> 8) & 0xff : status & 0x7f
    }

    public var terminationReason: Process.TerminationReason {
        guard let status = state.withLock({ $0.status }) else { preconditionFailure("the process has not ended") }
        return Self.exited(status) ? .exit : .uncaughtSignal
    }

    public func run() throws {
        guard let path = executableURL?.path else { throw TestFailure("TestProcess.run: no executableURL") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard devNull >= 0 else { throw TestFailure("TestProcess.run: cannot open /dev/null: \(String(cString: strerror(errno)))") }
        defer { close(devNull) }
        for (stream, target) in [(standardInput, STDIN_FILENO), (standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO)] {
            let source = Self.descriptor(stream, for: target, devNull: devNull)
            if source != target {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            }
        }
        guard cravey_spawn_closefrom(&actions, 3) == 0 else { throw TestFailure("TestProcess.run: addclosefrom failed") }
        let argv = ([path] + (arguments ?? [])).map { strdup($0) } + [nil]
        let environment = environment ?? ProcessInfo.processInfo.environment
        let envp = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw TestFailure("TestProcess.run: cannot start \(path): \(String(cString: strerror(spawned)))")
        }
        processIdentifier = pid
        state.withLock { $0.started = true }
        // The parent's copies of the ends the child took, as Foundation's `Process` closes them.
        if let pipe = standardInput as? Pipe { try? pipe.fileHandleForReading.close() }
        if let pipe = standardOutput as? Pipe { try? pipe.fileHandleForWriting.close() }
        if let pipe = standardError as? Pipe { try? pipe.fileHandleForWriting.close() }
        Thread { [self] in reap() }.start()
    }

    /// Blocks until the process has ended, on any thread but the cooperative pool's.
    public func waitUntilExit() {
        guard state.withLock({ $0.started }) else { return }
        ended.wait()
        ended.signal()
    }

    /// The same as ``waitUntilExit()``: the name the tests knew from `Process`.
    public func waitForExit() { waitUntilExit() }

    public func terminate() { if processIdentifier > 0, isRunning { kill(processIdentifier, SIGTERM) } }

    public func interrupt() { if processIdentifier > 0, isRunning { kill(processIdentifier, SIGINT) } }

    private func reap() {
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) < 0, errno == EINTR {}
        let handler = state.withLock { state in
            state.status = status
            return state.handler
        }
        ended.signal()
        handler?(self)
    }

    private static func exited(_ status: Int32) -> Bool { status & 0x7f == 0 }

    /// The descriptor the child gets as `target`: a pipe's end, a handle's descriptor (this
    /// process's own for `FileHandle.standardInput` and the like), else `/dev/null`.
    private static func descriptor(_ stream: Any?, for target: Int32, devNull: Int32) -> Int32 {
        switch stream {
        case let pipe as Pipe:
            target == STDIN_FILENO ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
        case let handle as FileHandle where handle === FileHandle.nullDevice:
            devNull
        case let handle as FileHandle:
            handle.fileDescriptor
        default:
            devNull
        }
    }
}
