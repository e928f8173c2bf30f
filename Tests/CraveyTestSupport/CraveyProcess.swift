import Foundation

/// The built `cravey` executable, run as a person runs it.
public enum Cravey {
    /// `$CRAVEY_BIN`, else the debug build beside the test bundle.
    public static let executable: String = {
        if let path = ProcessInfo.processInfo.environment["CRAVEY_BIN"], !path.isEmpty { return path }
        let products = Bundle.main.bundleURL.deletingLastPathComponent()
        let beside = products.appendingPathComponent("cravey").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return TestSoundServer.packageRoot.appendingPathComponent(".build/debug/cravey").path
    }()

    /// The environment for a run: this process's, with the test sound server, no colour, no
    /// display for windows unless `extra` names one (``VirtualDisplay/environment``), and no
    /// settings (a settings folder that does not exist) unless `extra` names an XDG_CONFIG_HOME.
    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = TestSoundServer.address
        environment["XDG_CONFIG_HOME"] = noSettings
        // No transcriber unless the test names one (``Speech/environment()``): a checkout's
        // build finds its own, and every import would hear its clip's words.
        environment["CRAVEY_TRANSCRIBER"] = ""
        for name in ["CRAVEY_LIBRARY", "DISPLAY", "WAYLAND_DISPLAY", "CRAVEY_PASSPHRASE_FILE"] { environment.removeValue(forKey: name) }
        environment.merge(extra) { $1 }
        return environment
    }

    /// A settings folder no test makes: the person's own settings never reach a test.
    private static let noSettings = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-no-settings-\(UUID().uuidString)").path

    /// An XDG_CONFIG_HOME holding a settings file of `lines` (`key = value`), in the running
    /// test's temporary folder.
    public static func settings(_ lines: String) throws -> [String: String] {
        let folder = temporaryFolder().appendingPathComponent("config-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("cravey"), withIntermediateDirectories: true)
        try Data(lines.utf8).write(to: folder.appendingPathComponent("cravey/settings.toml"))
        return ["XDG_CONFIG_HOME": folder.path]
    }

    /// Runs `cravey` with `arguments` to the end (off the cooperative pool).
    @discardableResult
    public static func run(_ arguments: [String], environment extra: [String: String] = [:],
                           input: Data? = nil) async throws -> CommandResult {
        try await CraveyTestSupport.run(executable, arguments, environment: environment(extra), input: input)
    }

    /// Runs `cravey` to the end with its stdout going to `output` (`/dev/full`, a pipe nobody
    /// reads); the result's error is what it wrote to stderr.
    public static func run(_ arguments: [String], writingTo output: FileHandle) async throws -> CommandResult {
        try await offPool {
            let process = TestProcess()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.environment = environment()
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = output
            let err = Pipe()
            process.standardError = err
            try process.run()
            let error = err.fileHandleForReading.readDataToEndOfFile()
            process.waitForExit()
            return CommandResult(status: process.terminationStatus, output: "", error: String(decoding: error, as: UTF8.self))
        }
    }

    /// The writing end of a pipe whose reading end is already closed: every write to it fails
    /// with EPIPE, as when `head` has read what it wanted and gone.
    public static func closedPipe() throws -> FileHandle {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        return pipe.fileHandleForWriting
    }

    /// Starts `cravey` on a pseudo-terminal, as a person at a terminal runs it: meters and
    /// prompts on, and colour too unless `environment` sets NO_COLOR (`swift test` sets it for
    /// the tests; a person's terminal usually has none) or a `TERM` other than the
    /// xterm-256color given by default. `typedAhead` is typed before it starts.
    public static func startOnTerminal(_ arguments: [String], environment extra: [String: String] = [:],
                                       typedAhead: String = "") throws -> PseudoTerminal {
        var terminal = environment(extra)
        if extra["NO_COLOR"] == nil { terminal.removeValue(forKey: "NO_COLOR") }
        if extra["TERM"] == nil { terminal["TERM"] = "xterm-256color" }
        return try PseudoTerminal(executable, arguments, environment: terminal, typedAhead: typedAhead)
    }

    /// Runs `cravey` to the end on a pseudo-terminal, typing `input`; the result's output is
    /// everything the terminal showed (stdout and stderr together, input echoed).
    public static func runOnTerminal(_ arguments: [String], input: String = "",
                                     environment extra: [String: String] = [:]) async throws -> CommandResult {
        let terminal = try startOnTerminal(arguments, environment: extra)
        terminal.type(input)
        let shown = try await offPool { terminal.waitForExit() }
        return CommandResult(status: terminal.process.terminationStatus, output: shown, error: "")
    }

    /// Runs `cravey arguments` on a terminal, types `answer` once it asks "[y/N]" (a question
    /// reads only what is typed after it shows), and waits for its end.
    /// `typedAhead` is typed before it starts.
    public static func answerOnTerminal(_ arguments: [String], _ answer: String, typedAhead: String = "",
                                        environment extra: [String: String] = [:]) async throws -> CommandResult {
        let terminal = try startOnTerminal(arguments, environment: extra, typedAhead: typedAhead)
        let asked = try await offPool { terminal.waitUntilShown(within: 60) { $0.contains("[y/N]") } }
        guard asked else {
            terminal.hangUp()
            throw TestFailure("cravey \(arguments.joined(separator: " ")) never asked: \(terminal.output)")
        }
        terminal.type(answer)
        let shown = try await offPool { terminal.waitForExit() }
        return CommandResult(status: terminal.process.terminationStatus, output: shown, error: "")
    }

    /// Starts `cravey` without waiting; stdout and stderr go to files the caller can read.
    public static func start(_ arguments: [String], environment extra: [String: String] = [:]) throws -> TestProcess {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment(extra)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}

/// The JSON objects a `--json` command printed, one a line (`play --json`'s reports); throws for
/// a line that is no JSON object.
public func jsonLines(_ output: String) throws -> [[String: Any]] {
    try output.split(separator: "\n").map { line in
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(line)")
        }
        return object
    }
}
