import CraveyKit
import Foundation

/// A shell on a pseudo-terminal that is its controlling terminal, as in a terminal window: what
/// it runs is the terminal's foreground job, so keys typed as Ctrl-C, Ctrl-Z or Ctrl-\ send it
/// their signals, and `stty -g` shows the terminal's mode before and after.
public struct TerminalShell: Sendable {
    public let terminal: PseudoTerminal

    /// The environment of a person's terminal for `cravey`: the tests' sound server, colour on
    /// (no NO_COLOR), `TERM=xterm-256color` unless `extra` names another.
    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = Cravey.environment()
        environment.removeValue(forKey: "NO_COLOR")
        environment["TERM"] = "xterm-256color"
        return environment.merging(extra) { $1 }
    }

    /// Runs `command` (shell words) with `sh`, which prints the terminal's mode (`stty -g`)
    /// before and after it, then "status N" (its exit status), surviving Ctrl-C and Ctrl-\
    /// itself as an interactive shell does.
    public init(running command: String, environment: [String: String] = TerminalShell.environment()) throws {
        let script = "trap : INT QUIT; stty -g; \(command); echo \"status $?\"; stty -g"
        terminal = try PseudoTerminal("/usr/bin/setsid", ["--ctty", "--wait", "/bin/sh", "-c", script], environment: environment)
    }

    /// An interactive shell with job control (Ctrl-Z stops its foreground job, `fg` continues
    /// it), its prompt "$ ", reading no start-up file: `shell` is bash (which puts its own
    /// terminal mode back when a job stops, and the job's on `fg`) or dash, Debian's `/bin/sh`
    /// (which does neither). ``type(_:)`` gives it commands.
    public init(interactive shell: String = "bash", environment: [String: String] = TerminalShell.environment()) throws {
        let arguments = shell == "bash" ? ["/bin/bash", "--norc", "--noprofile", "-i"] : ["/bin/\(shell)", "-i"]
        var environment = environment.merging(["PS1": "$ "]) { $1 }
        environment.removeValue(forKey: "ENV")
        terminal = try PseudoTerminal("/usr/bin/setsid", ["--ctty", "--wait"] + arguments, environment: environment)
    }

    /// The `cravey` command line `arguments` as shell words.
    public static func command(_ arguments: [String]) -> String {
        ([Cravey.executable] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }

    public func type(_ text: String) {
        terminal.type(text)
    }

    /// Waits (20 s at most) until `text` shows after what the terminal showed before `offset`
    /// characters of its output; true once it has.
    public func shown(_ text: String, after offset: Int = 0) async throws -> Bool {
        try await offPool { [terminal] in
            terminal.waitUntilShown(within: 20) { $0.dropFirst(offset).contains(text) }
        }
    }

    /// How many characters the terminal has shown so far, for ``shown(_:after:)``.
    public var mark: Int { terminal.output.count }

    /// The terminal's modes that `stty -g` printed, in order.
    public var modes: [String] { Self.modes(in: terminal.output) }

    /// The terminal's modes that `stty -g` printed in `output`, in order.
    public static func modes(in output: String) -> [String] {
        // A mode is some 36 hexadecimal fields between colons; a shell's prompt may stand before it.
        output.matches(of: /[0-9a-f]+(?::[0-9a-f]+){10,}/).map { String($0.output) }
    }

    /// Waits (20 s at most) until `stty -g` has printed `count` modes; true once it has.
    public func modesShown(_ count: Int) async throws -> Bool {
        try await offPool { [terminal] in terminal.waitUntilShown(within: 20) { Self.modes(in: $0).count >= count } }
    }

    /// Waits for the shell to exit, 20 s at most; then closes the terminal (SIGHUP to the shell
    /// and its jobs), so that a test whose command never ended does not wait forever. Returns
    /// what the terminal showed.
    public func exited() async throws -> String {
        try await offPool { [terminal] in
            if !waitUntil(within: 20, every: 0.05, { !terminal.process.isRunning }) { terminal.hangUp() }
            return terminal.waitForExit()
        }
    }

    /// Whether mouse reporting, once turned on, was turned off again every time (none turned on
    /// counts as off).
    public var mouseReportingOff: Bool {
        let output = terminal.output
        guard let lastOn = output.range(of: "\u{1B}[?1000h", options: .backwards) else { return true }
        return output[lastOn.upperBound...].contains("\u{1B}[?1000l")
    }

    /// Whether bracketed paste, once asked for, was turned off again every time (none asked
    /// for counts as off).
    public var bracketedPasteOff: Bool {
        let output = terminal.output
        guard let lastOn = output.range(of: "\u{1B}[?2004h", options: .backwards) else { return true }
        return output[lastOn.upperBound...].contains("\u{1B}[?2004l")
    }

    /// The exit status `sh` printed for the command, once it has.
    public func status() async throws -> Int32? {
        guard try await shown("status ") else { return nil }
        return terminal.output.matches(of: /status (\d+)/).last.flatMap { Int32($0.1) }
    }

    /// The process below the shell (children first, then theirs) whose command is `name`
    /// (`cravey-media`, which `cravey` becomes), once there is one (10 s at most).
    public func process(named name: String) async throws -> Int32? {
        let shell = terminal.process.processIdentifier
        let found = Locked<Int32?>(nil)
        _ = try await poll(within: 10, every: 0.02) {
            let pid = try descendant(of: shell, named: name)
            found.withLock { $0 = pid }
            return pid != nil
        }
        return found.withLock { $0 }
    }
}

/// The process below `parent` (children first, then theirs) whose command is `name`. Blocks
/// (`pgrep`): for a thread of the test's own (``offPool(_:)``, ``poll(within:every:_:)``).
public func descendant(of parent: Int32, named name: String) throws -> Int32? {
    var queue = [parent]
    while !queue.isEmpty {
        let pid = queue.removeFirst()
        let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        if command == name { return pid }
        queue += try runBlocking("pgrep", ["-P", String(pid)]).output.split(separator: "\n").compactMap { Int32($0) }
    }
    return nil
}
