import ArgumentParser
import CraveyCore
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands
import CraveyMediaCommands

/// How `cravey` ends a command line, found in process, as swift-argument-parser's own tests find
/// it (`parseAsRoot`, then `exitCode(for:)` and `fullMessage(for:)`), and as the two mains end it:
/// a command `cravey` runs itself (``CommandRoute``) parsed, validated and run as `cravey`'s main
/// runs it; a media command, or one `cravey` hands over, as `cravey-media`'s main runs it
/// (``CraveyMedia/parse(_:)``, then the ``Settings`` run it); what either throws reported as the
/// mains report it (``ParsableCommand/report(for:)``). What the command writes is held
/// (`Terminal.captured`) and read as ``output`` and ``error``, as a person would read stdout
/// and stderr. (What only a process has is left as the test process has it: its stdin, its
/// signals, and the setting that lets a sound server be reached over the network, process-wide.)
struct Outcome: Sendable, CustomStringConvertible {
    /// The exit status the executable would end with.
    let status: Int32
    /// What it would print for the refusal (or the help), "" when the command ran.
    let text: String
    /// Whether that text goes to stdout (`--help`, `--version`) rather than stderr.
    let toStandardOutput: Bool
    /// Whether parsing and validation refused the line, before any command ran.
    let refusedAtParse: Bool
    /// What the command wrote to stdout and to stderr before it ended.
    private(set) var written = (output: "", error: "")

    /// Everything on stdout: what the command wrote, then the help or the version.
    var output: String { written.output + (toStandardOutput ? text : "") }
    /// Everything on stderr: what the command wrote, then the refusal.
    var error: String { written.error + (toStandardOutput ? "" : text) }

    var description: String { "\(status) \(error.prefix(400))" }

    /// The outcome of `arguments` (what follows `cravey`), on a thread of its own
    /// (``ThreadExecutor``): a command opens SQLite files, and a media command decodes and writes
    /// media, which blocks.
    /// With `settings`, the command reads the settings file there (and `settings set` changes it),
    /// as the executables read `$XDG_CONFIG_HOME/cravey/settings.toml`, a damaged one reported first.
    static func of(_ arguments: [String], settings: URL? = nil) async throws -> Outcome {
        _ = Speech.noTranscriber
        let captured = Terminal.Captured()
        var outcome = await Terminal.$captured.withValue(captured) {
            await ThreadExecutor.run {
                // As the mains read it (a damaged file reported first); with none given, a file of
                // no one's: every setting at its default.
                let read = Settings(at: settings ?? URL(fileURLWithPath: "/nonexistent/cravey/settings.toml"))
                read.reportProblems()
                let route = CommandRoute(arguments)
                if route.executable == .cravey, let outcome = ran(route, settings: read) { return outcome }
                return await ranMedia(route.arguments, settings: read)
            }
        }
        outcome.written = (String(decoding: captured.output.withLock { $0 }, as: UTF8.self),
                           String(decoding: captured.error.withLock { $0 }, as: UTF8.self))
        return outcome
    }

    /// The outcome of `arguments` with `--passphrase-fd`: the read end of a pipe holding
    /// `passphrase` and a line break, as `3<secret` gives it.
    static func of(passphrase: String, _ arguments: [String]) async throws -> Outcome {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let line = Array((passphrase + "\n").utf8)
        let written = write(ends[1], line, line.count)
        close(ends[1])
        try #require(written == line.count)
        return try await of(arguments + ["--passphrase-fd", String(ends[0])])
    }

    /// The outcome of a command line `cravey` runs itself, as its main ends it; nil when the
    /// command hands itself over to `cravey-media` (``CommandRoute/HandOff``).
    private static func ran(_ route: CommandRoute, settings: Settings) -> Outcome? {
        let command: any ParsableCommand
        do {
            command = try CraveyCommands.Cravey.parseAsRoot(route.arguments)
        } catch {
            return Outcome(error, refusedAtParse: true)
        }
        do {
            // As both mains do: a settings file that is not read stops every command.
            try settings.refuseUnread(before: command)
            try settings.runNow(command)
            return Outcome(status: 0, text: "", toStandardOutput: false, refusedAtParse: false)
        } catch is CommandRoute.HandOff where route.mayHandOff {
            return nil
        } catch {
            return Outcome(error, refusedAtParse: false)
        }
    }

    /// The outcome of a command line `cravey-media` runs, as its main ends it.
    private static func ranMedia(_ arguments: [String], settings: Settings) async -> Outcome {
        let command: any ParsableCommand
        do {
            try CraveyMedia.checkAvailable(arguments)
            command = try CraveyMedia.parse(arguments)
        } catch {
            return Outcome(error, refusedAtParse: true, root: CraveyMedia.self)
        }
        do {
            try settings.refuseUnread(before: command)
            try await settings.run(command)
            return Outcome(status: 0, text: "", toStandardOutput: false, refusedAtParse: false)
        } catch {
            return Outcome(error, refusedAtParse: false, root: CraveyMedia.self)
        }
    }

    /// What `root`'s executable ends with for `error` (its help is that root's).
    init(_ error: any Error, refusedAtParse: Bool, root: any ParsableCommand.Type = CraveyCommands.Cravey.self) {
        (status, text, toStandardOutput) = root.report(for: error)
        self.refusedAtParse = refusedAtParse
    }

    private init(status: Int32, text: String, toStandardOutput: Bool, refusedAtParse: Bool) {
        (self.status, self.text, self.toStandardOutput, self.refusedAtParse) = (status, text, toStandardOutput, refusedAtParse)
    }
}
