import Foundation

/// A program running in a terminal window of tmux, as a person's terminal runs a full-screen
/// program: tmux is a real terminal emulator, so the test reads the screen as it is shown
/// (`capture-pane`), the terminal's modes as the program left them (mouse reporting, the
/// alternate screen, the cursor), types keys and mouse reports (`send-keys`), and resizes the
/// window. Each one runs its own tmux server, on a socket of its own, ended with it.
///
/// The command runs under `sh`, which writes `stty -a` before and after it (with its exit
/// status) into files of the test's temporary folder, so a test can compare the terminal's mode
/// after with the mode before; the window stays once it has ended (`remain-on-exit`).
///
/// Each call to tmux is a process run to its end: the calls a test makes from a task are awaited
/// (run off the cooperative pool); ``waitUntilShown(within:_:)`` and ``waitForExit(within:)``
/// block, for a thread of the test's own (``offPool(_:)``).
// @unchecked Sendable: every property is set in `init` and only read afterwards.
public final class TmuxTerminal: @unchecked Sendable {
    /// The tmux server's socket (`tmux -S`).
    private let socket: String
    private let folder: URL
    /// The tmux server, in the foreground (`tmux -D`), so that this test owns it.
    private let server = TestProcess()

    /// Starts `executable` with `arguments` in a window of `columns` by `rows`, TERM as tmux
    /// gives it (`screen`), with `environment` (the test sound server's, no display).
    public init(_ executable: String, _ arguments: [String], environment: [String: String],
                columns: Int = 80, rows: Int = 24) async throws {
        folder = temporaryFolder()
        socket = folder.appendingPathComponent("tmux-\(UUID().uuidString.prefix(8))").path
        let quoted = ([executable] + arguments).map(Self.quote).joined(separator: " ")
        // Ctrl-C goes to the whole foreground process group: the shell waits it out, as a
        // person's interactive shell does, to write what followed.
        let script = """
            trap : INT
            stty -a > \(Self.quote(folder.appendingPathComponent("stty.before").path))
            \(quoted)
            echo $? > \(Self.quote(folder.appendingPathComponent("status").path))
            stty -a > \(Self.quote(folder.appendingPathComponent("stty.after").path))
            """
        let config = folder.appendingPathComponent("tmux.conf")
        try "set -g remain-on-exit on\nset -g default-terminal screen\nset -g status off\n"
            .write(to: config, atomically: true, encoding: .utf8)
        var environment = environment
        environment.removeValue(forKey: "TMUX")
        try await start(config: config, environment: environment,
                        ["new-session", "-d", "-x", String(columns), "-y", String(rows), "sh", "-c", script])
    }

    /// Starts an interactive bash (job control on, as in a person's terminal) in a window of
    /// `columns` by `rows`; the test types its command lines (``type(_:)``).
    public init(shellWith environment: [String: String], columns: Int = 80, rows: Int = 24) async throws {
        folder = temporaryFolder()
        socket = folder.appendingPathComponent("tmux-\(UUID().uuidString.prefix(8))").path
        let config = folder.appendingPathComponent("tmux.conf")
        try "set -g remain-on-exit on\nset -g default-terminal screen\nset -g status off\n"
            .write(to: config, atomically: true, encoding: .utf8)
        var environment = environment
        environment.removeValue(forKey: "TMUX")
        environment["PS1"] = "$ "
        try await start(config: config, environment: environment,
                        ["new-session", "-d", "-x", String(columns), "-y", String(rows), "bash", "--norc", "--noprofile", "-i"])
    }

    // Ended on a thread of its own: the last reference is often dropped on the cooperative pool.
    deinit {
        let (socket, server) = (socket, server)
        Thread {
            _ = try? runBlocking("tmux", ["-S", socket, "kill-server"])
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
        }.start()
    }

    /// Types keys as tmux names them (`Enter`, `Escape`, `C-c`, `C-z`, `Up`, `NPage`), or words.
    public func type(_ keys: String...) async throws {
        try await tmux(["send-keys"] + keys)
    }

    /// Types `text` byte for byte, as a terminal sends it (an escape sequence, a mouse report).
    public func typeLiteral(_ text: String) async throws {
        try await tmux(["send-keys", "-l", text])
    }

    /// Pastes `text` byte for byte (no line break replaced), as a terminal pastes: between
    /// bracketed-paste marks when the program asked for them and `bracketed` (`paste-buffer
    /// -p`), else as if typed, all at once.
    public func paste(_ text: String, bracketed: Bool = true) async throws {
        let file = folder.appendingPathComponent("paste-\(UUID().uuidString.prefix(8))")
        try Data(text.utf8).write(to: file)
        try await tmux(["load-buffer", "-b", "paste", file.path])
        try await tmux(["paste-buffer", "-r", "-d", "-b", "paste"] + (bracketed ? ["-p"] : []))
    }

    /// Closes the window as a person closing their terminal does: the program's terminal is
    /// hung up (`kill-pane`).
    public func close() async throws {
        try await tmux(["kill-pane"])
    }

    /// A left-button press at `column` and `row` (0-based), as an xterm reports it to a program
    /// that asked (X10 encoding, which TERM=screen's terminfo names).
    public func click(column: Int, row: Int) async throws {
        try await typeLiteral("\u{1B}[M \(Character(UnicodeScalar(UInt8(33 + column))))\(Character(UnicodeScalar(UInt8(33 + row))))")
    }

    /// The mouse wheel turned once, down (toward the end) or up, at the window's top left.
    public func wheel(down: Bool) async throws {
        try await typeLiteral("\u{1B}[M\(down ? "a" : "`")!!")
    }

    /// What the window shows now, a line per row, without colours or attributes.
    public var screen: String {
        get async { (try? await tmux(["capture-pane", "-p"])) ?? "" }
    }

    /// What the window shows now with its attributes, as SGR escape codes (`ESC [ 7 m` for
    /// reverse video).
    public var styledScreen: String {
        get async { (try? await tmux(["capture-pane", "-p", "-e"])) ?? "" }
    }

    /// Blocks until the screen satisfies `condition`; false if it did not within `seconds`.
    /// Call it off the cooperative pool (``offPool(_:)``).
    public func waitUntilShown(within seconds: Double, _ condition: (String) -> Bool) -> Bool {
        waitUntil(within: seconds, every: 0.05) { condition((try? tmuxBlocking(["capture-pane", "-p"])) ?? "") }
    }

    /// The terminal's state as tmux keeps it for the window: `mouse_any_flag` (any mouse
    /// reporting on), `alternate_on`, `cursor_flag` (the cursor shown), `pane_dead`,
    /// `pane_dead_status` (the exit status once it ended), `pane_pid`.
    public func state(_ name: String) async -> String {
        (try? await offPool { [self] in stateBlocking(name) }) ?? ""
    }

    /// ``state(_:)`` on the calling thread, which it blocks: for a thread of the test's own (a
    /// ``poll(within:every:_:)`` condition), never a task.
    public func currentState(_ name: String) -> String { stateBlocking(name) }

    /// The process the window runs (the `sh` around the program).
    public var shellID: pid_t {
        get async { pid_t(await state("pane_pid")) ?? 0 }
    }

    /// Changes the window's size, as a person resizing it does (the program gets SIGWINCH).
    public func resize(columns: Int, rows: Int) async throws {
        try await tmux(["resize-window", "-x", String(columns), "-y", String(rows)])
    }

    /// Waits until the program has ended; its exit status, or nil if it did not within `seconds`.
    /// Blocks: call it off the cooperative pool (``offPool(_:)``).
    public func waitForExit(within seconds: Double) -> Int32? {
        let status = folder.appendingPathComponent("status")
        guard waitUntil(within: seconds, every: 0.05, { stateBlocking("pane_dead") == "1" }),
              let text = try? String(contentsOf: status, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `stty -a` before the program started and after it ended, the window's size left out
    /// (a resize changes it); equal when the program put the terminal's mode back.
    public func terminalModes() throws -> (before: String, after: String) {
        func modes(_ name: String) throws -> String {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            return text.replacingOccurrences(of: #"rows \d+; columns \d+;"#, with: "", options: .regularExpression)
        }
        return (try modes("stty.before"), try modes("stty.after"))
    }

    /// Runs tmux with `arguments` on this window's server, off the cooperative pool.
    @discardableResult
    private func tmux(_ arguments: [String]) async throws -> String {
        try await offPool { [self] in try tmuxBlocking(arguments) }
    }

    /// ``tmux(_:)`` on the calling thread, which it blocks.
    @discardableResult
    private func tmuxBlocking(_ arguments: [String]) throws -> String {
        let result = try runBlocking("tmux", ["-S", socket] + arguments)
        guard result.status == 0 else { throw TestFailure("tmux \(arguments.joined(separator: " ")): \(result.error)") }
        return result.output
    }

    private func stateBlocking(_ name: String) -> String {
        ((try? tmuxBlocking(["display-message", "-p", "#{\(name)}"])) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts the tmux server in the foreground (a daemon would outlive the test and hold
    /// whatever descriptors it was given), then the session, with `environment`, off the
    /// cooperative pool.
    private func start(config: URL, environment: [String: String], _ session: [String]) async throws {
        try await offPool { [self] in try startBlocking(config: config, environment: environment, session) }
    }

    private func startBlocking(config: URL, environment: [String: String], _ session: [String]) throws {
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["tmux", "-D", "-S", socket, "-f", config.path]
        server.environment = environment
        (server.standardInput, server.standardOutput, server.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice, FileHandle.nullDevice)
        try server.run()
        guard waitUntil(within: 10, every: 0.01, { FileManager.default.fileExists(atPath: socket) }) else {
            throw TestFailure("the tmux server made no socket within 10 s")
        }
        let started = try runBlocking("tmux", ["-S", socket] + session, environment: environment)
        guard started.status == 0 else { throw TestFailure("tmux did not start the session: \(started.error)") }
    }

    private static func quote(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
