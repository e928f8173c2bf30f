import ArgumentParser
import CraveyCore
import CraveyTestSupport
import Foundation
@testable import CraveyCommands

/// How `cravey` ends a command line, found in process, as swift-argument-parser's own tests find
/// it (`parseAsRoot`, then `exitCode(for:)` and `fullMessage(for:)`): the line parsed and
/// validated by ``CraveyCommands/Cravey``'s root, a command `cravey` runs itself (``CommandRoute``)
/// then run, and what either throws reported as the executables' mains report it
/// (``ParsableCommand/report(for:)``). A media command is parsed and validated here as
/// `cravey-media` parses it (both wrap the same definition), and never run. What the command
/// writes is held (`Terminal.captured`) and read as ``output`` and ``error``, as a person would
/// read stdout and stderr.
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

    /// The outcome of `arguments` (what follows `cravey`), on a thread of its own: a library
    /// command opens SQLite files, which blocks.
    /// With `settings`, the command reads the settings file there (and `settings set` changes it),
    /// as the executables read `$XDG_CONFIG_HOME/cravey/settings.toml`, a damaged one reported first.
    static func of(_ arguments: [String], settings: URL? = nil) async throws -> Outcome {
        try await offPool { now(arguments, settings: settings) }
    }

    /// ``of(_:)`` on the calling thread.
    static func now(_ arguments: [String], settings: URL? = nil) -> Outcome {
        let captured = Terminal.Captured()
        var outcome = Terminal.$captured.withValue(captured) {
            // As the mains read it (a damaged file reported first); with none given, a file of no
            // one's: every setting at its default.
            let read = Settings(at: settings ?? URL(fileURLWithPath: "/nonexistent/cravey/settings.toml"))
            read.reportProblems()
            return ran(arguments, settings: read)
        }
        outcome.written = (String(decoding: captured.output.withLock { $0 }, as: UTF8.self),
                           String(decoding: captured.error.withLock { $0 }, as: UTF8.self))
        return outcome
    }

    /// The outcome of `arguments`, what it writes going where the caller says.
    private static func ran(_ arguments: [String], settings: Settings) -> Outcome {
        var command: ParsableCommand
        do {
            command = try CraveyCommands.Cravey.parseAsRoot(arguments)
        } catch {
            return Outcome(error, refusedAtParse: true)
        }
        do {
            // As both mains do: a settings file that is not read stops every command.
            try settings.refuseUnread(before: command)
            if CommandRoute(arguments).executable == .cravey { try settings.runNow(command) }
            return Outcome(status: 0, text: "", toStandardOutput: false, refusedAtParse: false)
        } catch {
            return Outcome(error, refusedAtParse: false)
        }
    }

    init(_ error: any Error, refusedAtParse: Bool) {
        (status, text, toStandardOutput) = CraveyCommands.Cravey.report(for: error)
        self.refusedAtParse = refusedAtParse
    }

    private init(status: Int32, text: String, toStandardOutput: Bool, refusedAtParse: Bool) {
        (self.status, self.text, self.toStandardOutput, self.refusedAtParse) = (status, text, toStandardOutput, refusedAtParse)
    }
}
