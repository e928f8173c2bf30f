import ArgumentParser
import CraveyCore
import Foundation

/// Where the CLI writes: data to stdout, diagnostics to stderr, colour and meters only on a TTY.
public enum Terminal {
    public static var stderrIsTTY: Bool { isatty(2) == 1 }
    public static var stdinIsTTY: Bool { isatty(0) == 1 }
    /// Colour and live meters: only on a terminal, and never when NO_COLOR is set.
    public static var isInteractive: Bool {
        stderrIsTTY && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    public static func output(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    public static func diagnostic(_ text: String, terminator: String = "\n") {
        FileHandle.standardError.write(Data((text + terminator).utf8))
    }

    public static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        output(String(decoding: data, as: UTF8.self))
    }

    public static func printJSON(_ recording: Recording) {
        FileHandle.standardOutput.write(RecordingJSON.encode(recording))
    }

    public static func printJSON(_ recordings: [Recording]) {
        RecordingJSON.write(recordings, to: STDOUT_FILENO)
    }
}

/// Runs a command body, turning errors into a message on stderr and the documented exit code.
public func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as CraveyError {
        Terminal.diagnostic("cravey: \(error.message)")
        throw ExitCode(error.kind.exitCode)
    } catch {
        guard let error = CraveyError(database: error) else { throw error }
        Terminal.diagnostic("cravey: \(error.message)")
        throw ExitCode(error.kind.exitCode)
    }
}

extension CraveyError.Kind {
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

/// How the CLI shows dates and durations to a person.
public enum Format {
    /// "Nov 22, 2026 3:42 PM" in local time.
    public static func date(_ date: Date) -> String {
        RecordingMetadata.displayDate(date)
    }

    /// "0:07", "12:30", "1:02:03".
    public static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }

    /// Left-aligns columns by character count.
    public static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
