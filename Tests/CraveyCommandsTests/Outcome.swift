import ArgumentParser
import CraveyTestSupport
import Foundation
@testable import CraveyCommands

/// How `cravey` ends a command line, found in process, as swift-argument-parser's own tests find
/// it (`parseAsRoot`, then `exitCode(for:)` and `fullMessage(for:)`): the line parsed and
/// validated by ``CraveyCommands/Cravey``'s root, a command `cravey` runs itself (``CommandRoute``)
/// then run, and what either throws reported as the executables' mains report it
/// (``ParsableCommand/report(for:)``). A media command is parsed and validated here as
/// `cravey-media` parses it (both wrap the same definition), and never run.
struct Outcome: Sendable, CustomStringConvertible {
    /// The exit status the executable would end with.
    let status: Int32
    /// What it would print for the refusal (or the help), "" when the command ran.
    let text: String
    /// Whether that text goes to stdout (`--help`, `--version`) rather than stderr.
    let toStandardOutput: Bool
    /// Whether parsing and validation refused the line, before any command ran.
    let refusedAtParse: Bool

    var description: String { "\(status) \(text.prefix(400))" }

    /// The outcome of `arguments` (what follows `cravey`), on a thread of its own: a library
    /// command opens SQLite files, which blocks.
    static func of(_ arguments: [String]) async throws -> Outcome {
        try await offPool { now(arguments) }
    }

    /// ``of(_:)`` on the calling thread.
    static func now(_ arguments: [String]) -> Outcome {
        var command: ParsableCommand
        do {
            command = try CraveyCommands.Cravey.parseAsRoot(arguments)
        } catch {
            return Outcome(error, refusedAtParse: true)
        }
        do {
            // The settings at their defaults: a file of no one's, as `cravey` would read none.
            if CommandRoute(arguments).executable == .cravey { try Settings(at: URL(fileURLWithPath: "/nonexistent/settings.toml")).runNow(command) }
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
