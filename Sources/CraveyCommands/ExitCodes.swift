import ArgumentParser
import CraveyCore

extension ParsableCommand {
    /// Ends the process for an error a command threw; each executable's `main` calls it once.
    ///
    /// A ``CraveyError`` (or a database error, explained as one) becomes "cravey: <message>" on
    /// stderr and its kind's exit code; everything else (usage errors, `--help`, `--version`,
    /// `ExitCode`) ArgumentParser reports as it always does.
    public static func exit(reporting error: any Error) -> Never {
        if let error = error as? CraveyError ?? CraveyError(database: error) {
            Terminal.diagnostic("cravey: \(Format.visible(error.message))")
            exit(withError: ExitCode(error.kind.exitCode))
        }
        exit(withError: error)
    }
}

extension CraveyError.Kind {
    /// The documented exit code: 64, 65, 66, 69, 73, or 1 for anything else.
    public var exitCode: Int32 {
        switch self {
        case .invalidInput: 64
        case .undecodableMedia: 65
        case .notFound: 66
        case .unavailable: 69
        case .cannotWrite: 73
        case .other: 1
        }
    }
}
