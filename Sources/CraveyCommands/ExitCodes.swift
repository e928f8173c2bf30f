import ArgumentParser
import CraveyCore

extension ParsableCommand {
    /// Ends the process for an error a command threw; each executable's `main` calls it once.
    ///
    /// A ``CraveyError`` (or a database error, explained as one) becomes "cravey: <message>" on
    /// stderr and its kind's exit code (``Terminal/exit(reporting:)``, which the terminal app
    /// uses where no command is around it). What ends in success (`--help`, `--version`) is written
    /// to stdout through ``Terminal/output(_:)``, so a full disk is exit 73 there too; everything
    /// else (usage errors, `ExitCode`) ArgumentParser reports as it always does. A closed stdout
    /// (``OutputClosed``) ends quietly with status 0.
    package static func exit(reporting error: any Error) -> Never {
        if error is OutputClosed || error is CraveyError || CraveyError(database: error) != nil {
            Terminal.exit(reporting: error)
        }
        if exitCode(for: error) == .success, !(error is ExitCode) {
            do {
                try Terminal.output(fullMessage(for: error))
            } catch {
                exit(reporting: error)
            }
            exit(withError: ExitCode.success)
        }
        exit(withError: error)
    }

    /// What ``exit(reporting:)`` makes of `error`, without ending the process: the exit status,
    /// and the text and whether it goes to stdout (`--help`, `--version`) or to stderr. The
    /// tests check a refusal in process through it, as the executables would end.
    package static func report(for error: any Error) -> (status: Int32, text: String, toStandardOutput: Bool) {
        if error is OutputClosed { return (0, "", false) }
        if let error = error as? CraveyError ?? CraveyError(database: error) {
            return (error.kind.exitCode, Terminal.message(for: error), false)
        }
        let code = exitCode(for: error)
        return (code.rawValue, fullMessage(for: error), code == .success)
    }
}
