import Foundation

/// How a failure ends a process: the message a person reads and the documented exit code. Each
/// executable's `main` maps what its command threw through here once (CraveyCommands'
/// `exit(reporting:)`); the terminal app uses it where a signal ends the process with no command
/// around it.
extension Terminal {
    /// Ends the process for `error`: a ``CraveyError`` (or a database error, explained as one) as
    /// "cravey: <message>" on stderr with its advice (``Messages``) and its kind's exit code; a
    /// closed stdout (``OutputClosed``) quietly with status 0; anything else as "cravey: <error>"
    /// and status 1.
    package static func exit(reporting error: any Error) -> Never {
        if error is OutputClosed { Foundation.exit(0) }
        guard let error = error as? CraveyError ?? CraveyError(database: error) else {
            diagnostic("cravey: \(Format.visible("\(error)"))")
            Foundation.exit(1)
        }
        diagnostic(message(for: error))
        Foundation.exit(error.kind.exitCode)
    }

    /// What a person reads of `error`: "cravey: <message>" with its advice (``Messages``), escaped.
    package static func message(for error: CraveyError) -> String {
        "cravey: \(Format.visible(Messages.text(for: error)))"
    }
}

extension CraveyError.Kind {
    /// The documented exit code: 64, 65, 66, 67, 69, 73, 75, 76, 77, 78, or 1 for anything else.
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
        case .wrongPassphrase: 67
        case .notSyncFolder: 76
        case .other: 1
        }
    }
}
