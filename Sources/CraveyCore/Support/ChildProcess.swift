internal import CSpawn
import Foundation
import Glibc
import SystemPackage

/// A program this process started with `posix_spawn`: its pipes, a signal to it, and its end.
///
/// Not Foundation's `Process`, which on Linux watches its children through a CFSocket whose
/// wake-up pair is two AF_INET sockets on 127.0.0.1: a network socket in a program that promises
/// none, and "Could not create wakeup socket pair for CFSocket!!!" in a sandbox without a network.
/// This opens no socket: pipes, `posix_spawn`, `waitid`.
///
/// The child starts with every signal at its default disposition and none blocked (whatever this
/// process ignores or a thread of it blocks, SIGPIPE and SIGTERM among them), and with no
/// descriptor of this process's but its three standard streams.
///
/// Waiting blocks: ``wait()`` on a thread of the caller's own (not a task's), or ``exit()``,
/// which waits on a thread of its own. A child nobody waits for stays a zombie until this process ends.
package final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable {
        /// This process's own (its terminal, for an editor).
        case inherit
        /// A pipe whose other end this process holds: ``input``, ``output`` or ``errors``.
        case pipe
        /// `/dev/null`.
        case null
    }

    /// How a child ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exit(Int32)
        /// This signal ended it.
        case signal(Int32)

        package var description: String {
            switch self {
            case .exit(let status): "exit \(status)"
            case .signal(let number): "signal \(number)"
            }
        }
    }

    /// A program that could not be started: which, and why.
    package struct StartError: Error, CustomStringConvertible {
        /// The program as it was named.
        package let program: String
        /// Why, as `posix_spawn` said (`.noSuchFileOrDirectory` for a program that is not there).
        package let errno: Errno

        package var description: String {
            errno == .noSuchFileOrDirectory ? "there is no program \(program)" : "cannot start \(program): \(errno)"
        }
    }

    /// The child's process id.
    package let id: Int32
    /// The writing end of the child's stdin when it is a ``Stream/pipe``; ``closeInput()`` closes it.
    package let input: FileDescriptor?
    /// The reading end of the child's stdout when it is a ``Stream/pipe``.
    package let output: FileDescriptor?
    /// The reading end of the child's stderr when it is a ``Stream/pipe``.
    package let errors: FileDescriptor?

    /// How it ended, once reaped, and whether ``input`` is closed.
    private let state = Locked<(ended: Termination?, inputClosed: Bool)>((nil, false))

    /// Starts `program` with `arguments` (its `argv[1...]`; `argv[0]` is `program`) and
    /// `environment` (nil: this process's own). `searchingPath` looks a name without a slash up
    /// on this process's PATH, as a shell does. The corresponding C function is `posix_spawnp`
    /// (`posix_spawn` without `searchingPath`).
    ///
    /// Throws ``StartError`` when the program cannot be started (not there, not executable).
    package init(_ program: String, _ arguments: [String] = [], environment: [String: String]? = nil, searchingPath: Bool = false,
                 input: Stream = .inherit, output: Stream = .inherit, errors: Stream = .inherit) throws(StartError) {
        let fail = { (code: Int32) in StartError(program: program, errno: Errno(rawValue: code)) }
        // Each pipe: (the child's end, ours), both close-on-exec; the child's end is dup2'd onto
        // 0, 1 or 2, and closed here once the child has it (or has failed to start).
        var pipes: [(child: Int32, ours: Int32)?] = []
        defer { for case let ends? in pipes { close(ends.child) } }
        for (stream, childReads) in [(input, true), (output, false), (errors, false)] {
            guard stream == .pipe else { pipes.append(nil); continue }
            var ends: [Int32] = [-1, -1]
            guard cravey_pipe2(&ends, O_CLOEXEC) == 0 else {
                let code = errno
                for case let made? in pipes { close(made.ours) }
                throw fail(code)
            }
            pipes.append(childReads ? (ends[0], ends[1]) : (ends[1], ends[0]))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (number, stream) in [input, output, errors].enumerated() {
            if let ends = pipes[number] {
                posix_spawn_file_actions_adddup2(&actions, ends.child, Int32(number))
            } else if stream == .null {
                posix_spawn_file_actions_addopen(&actions, Int32(number), "/dev/null", number == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        // Nothing of ours but 0, 1 and 2 reaches the child, close-on-exec or not.
        cravey_spawn_closefrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = (envp ?? []).withUnsafeBufferPointer { given in
            let environ = environment == nil ? UnsafePointer(Glibc.environ) : given.baseAddress
            return searchingPath ? posix_spawnp(&pid, program, &actions, &attributes, argv, environ)
                                 : posix_spawn(&pid, program, &actions, &attributes, argv, environ)
        }
        guard spawned == 0 else {
            for case let ends? in pipes { close(ends.ours) }
            throw fail(spawned)
        }
        id = pid
        self.input = pipes[0].map { FileDescriptor(rawValue: $0.ours) }
        self.output = pipes[1].map { FileDescriptor(rawValue: $0.ours) }
        self.errors = pipes[2].map { FileDescriptor(rawValue: $0.ours) }
    }

    deinit {
        if !state.withLock({ $0.inputClosed }) { try? input?.close() }
        try? output?.close()
        try? errors?.close()
    }

    /// Closes ``input``, after the last write to it: the child reads the end of its stdin.
    package func closeInput() {
        let open = state.withLock { state in
            defer { state.inputClosed = true }
            return !state.inputClosed
        }
        if open { try? input?.close() }
    }

    /// Sends `signal` to the child, unless it has been reaped (when its id may be another's).
    /// The corresponding C function is `kill`.
    package func signal(_ signal: Int32) {
        state.withLock { state in
            if state.ended == nil { kill(id, signal) }
        }
    }

    /// Waits for the child to end, and reaps it. Blocks: call it on a thread of your own, never
    /// from a task (``exit()`` is for tasks). The corresponding C functions are `waitid` and
    /// `waitpid`.
    ///
    /// The child is reaped with the lock held that ``signal(_:)`` takes, so a signal never
    /// reaches a process that took its id after it.
    package func wait() -> Termination {
        var info = siginfo_t()
        // Without WNOWAIT nobody else may reap it: its id stays its own until the lock below.
        while waitid(P_PID, id_t(id), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        return state.withLock { state in
            if let ended = state.ended { return ended }
            var status: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(id, &status, 0) } while reaped < 0 && errno == EINTR
            // A process that ignores SIGCHLD has its children reaped by the kernel, their status lost.
            let ended: Termination = reaped < 0 ? .exit(-1) : (status & 0x7f) == 0 ? .exit((status >> 8) & 0xff) : .signal(status & 0x7f)
            state.ended = ended
            return ended
        }
    }

    /// Waits for the child to end on a thread of its own (the cooperative pool never blocks),
    /// and reaps it.
    package func exit() async -> Termination {
        await withCheckedContinuation { (ended: CheckedContinuation<Termination, Never>) in
            let thread = Thread { ended.resume(returning: self.wait()) }
            thread.name = "cravey.wait"
            thread.start()
        }
    }

    /// Everything the child writes to its stdout until it closes it (its end, usually).
    /// Blocks while the child runs: call it as ``wait()`` is called.
    package func outputToEnd() -> Data {
        Self.toEnd(output)
    }

    /// Everything the child writes to its stderr until it closes it; blocks as ``outputToEnd()`` does.
    package func errorsToEnd() -> Data {
        Self.toEnd(errors)
    }

    private static func toEnd(_ pipe: FileDescriptor?) -> Data {
        guard let output = pipe else { return Data() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while let count = try? buffer.withUnsafeMutableBytes({ try output.read(into: $0, retryOnInterrupt: true) }), count > 0 {
            data.append(contentsOf: buffer[..<count])
        }
        return data
    }
}
