import ArgumentParser
import CraveyCore

extension ParsableCommand {
    /// Ends the process for an error a command threw; each executable's `main` calls it once.
    ///
    /// A ``CraveyError`` (or a database error, explained as one) becomes "cravey: <message>" on
    /// stderr and its kind's exit code. What ends in success (`--help`, `--version`) is written
    /// to stdout through ``Terminal/output(_:)``, so a full disk is exit 73 there too; everything
    /// else (usage errors, `ExitCode`) ArgumentParser reports as it always does.
    package static func exit(reporting error: any Error) -> Never {
        if let error = error as? CraveyError ?? CraveyError(database: error) {
            let report = report(for: error)
            Terminal.diagnostic(report.text)
            exit(withError: ExitCode(report.status))
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
        if let error = error as? CraveyError ?? CraveyError(database: error) {
            return (error.kind.exitCode, "cravey: \(Format.visible(Messages.text(for: error)))", false)
        }
        let code = exitCode(for: error)
        return (code.rawValue, fullMessage(for: error), code == .success)
    }
}

extension CraveyError.Kind {
    /// The documented exit code: 64, 65, 66, 69, 73, 75, 77, 78, or 1 for anything else.
    package var exitCode: Int32 {
        switch self {
        case .invalidInput: 64
        case .undecodableMedia: 65
        case .notFound: 66
        case .unavailable: 69
        case .cannotWrite: 73
        case .newerLibrary: 78
        case .unsafeConfiguration: 77
        case .damagedArchive: 65
        case .busy: 75
        case .other: 1
        }
    }
}
