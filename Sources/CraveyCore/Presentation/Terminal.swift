import Foundation
import SystemPackage

/// Where the CLI writes: data to stdout, diagnostics to stderr, colour and meters only on a TTY.
/// Here, beside the library without media, because both executables' commands and the terminal
/// app write through it (see docs/architecture.md).
package enum Terminal {
    /// Whether `descriptor` (0, 1 or 2) is a terminal a command may draw on and read keys from:
    /// never while what the command writes is held (``captured``), so a command run in process
    /// behaves the same whether the tests were started from a terminal or not (it took the
    /// terminal's mode and asked for mouse reports). The corresponding C function is `isatty`.
    package static func isTerminal(_ descriptor: Int32) -> Bool {
        captured == nil && isatty(descriptor) == 1
    }

    /// Colour: only on a terminal (stderr) that can show it, and never when NO_COLOR is set.
    package static var isInteractive: Bool {
        canRedraw && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    /// Whether a line on stderr can be drawn again in place (a meter, a progress line): stderr
    /// is a terminal, and not one that says it can only print lines (``isDumb``).
    package static var canRedraw: Bool {
        isTerminal(2) && !isDumb
    }

    /// Whether the terminal says it can do no more than print lines: `TERM=dumb`, as Emacs's
    /// shell and some editors' consoles set it. Such a terminal gets plain lines: no colour, no
    /// cursor movement, no mouse reporting.
    package static var isDumb: Bool {
        ProcessInfo.processInfo.environment["TERM"] == "dumb"
    }

    /// Whether this process runs in a terminal: stdin, stdout or stderr is one, or it has a
    /// controlling terminal (`/dev/tty` opens). A play started by a launcher or a keyboard
    /// shortcut has none, and tells the desktop instead.
    package static var isAttached: Bool {
        if (0...2).contains(where: { isatty($0) == 1 }) { return true }
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        if descriptor >= 0 { close(descriptor) }
        return descriptor >= 0
    }

    /// The width of the terminal on stderr, in columns; 80 when it does not say. The
    /// corresponding C function is `ioctl` with `TIOCGWINSZ`.
    package static var columns: Int {
        var size = winsize()
        guard ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Writes a line of data to stdout. See ``write(_:)``.
    package static func output(_ text: String) throws {
        try write(Data((text + "\n").utf8))
    }

    /// Writes data to stdout, again after a short write until all of it is written. A full disk
    /// (or any other failed write) throws a ``CraveyError`` of kind `.cannotWrite` (exit 73); a
    /// closed pipe (`cravey list | head`) throws ``OutputClosed`` (exit 0): the reader has what it
    /// wanted, so the command stops and the process ends quietly with status 0, as a tool killed
    /// by SIGPIPE would end quietly, but without failing a `set -o pipefail` pipeline. Both
    /// executables ignore SIGPIPE, so the write reports EPIPE instead of killing the process.
    package static func write(_ data: Data) throws {
        if let captured { return captured.output.withLock { $0.append(data) } }
        try checked { _ = try FileDescriptor.standardOutput.writeAll(data) }
    }

    /// Diagnostics are best effort: a closed or full stderr does not stop a command.
    package static func diagnostic(_ text: String, terminator: String = "\n") {
        if let captured { return captured.error.withLock { $0.append(Data((text + terminator).utf8)) } }
        _ = try? FileDescriptor.standardError.writeAll((text + terminator).utf8)
    }

    /// Where what a command writes to stdout and stderr is held instead, while it runs in process
    /// inside `Terminal.$captured.withValue(...)`: the command layer's tests read a command's
    /// output as a person sees it, without starting `cravey`. Nil (the descriptors) otherwise.
    @TaskLocal package static var captured: Captured?

    /// What a command run in process wrote: its stdout and its stderr, each in the order written.
    package final class Captured: Sendable {
        package let output = Locked(Data())
        package let error = Locked(Data())

        package init() {}
    }

    /// Prints `value` as JSON with `--json`, else the text `describe` makes of it.
    package static func print<Value: Encodable>(_ value: Value, json: Bool, _ describe: (Value) throws -> String) throws {
        try json ? printJSON(value) : output(describe(value))
    }

    /// Prints `value` as pretty-printed JSON with sorted keys and ISO 8601 dates; recordings go
    /// through ``RecordingJSON``, which writes the same JSON as `JSONEncoder` without its cost.
    package static func printJSON<Value: Encodable>(_ value: Value) throws {
        if let recording = value as? Recording { return try write(RecordingJSON.encode(recording)) }
        if let recordings = value as? [Recording] {
            if captured != nil { return try write(RecordingJSON.encode(recordings)) }
            return try checked { try RecordingJSON.write(recordings, to: .standardOutput) }
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try output(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Prints a clip just saved (by `record` or `import`): its id, or the whole record with
    /// `--json`. When that cannot be written (a terminal closed, a full disk), the error says the
    /// clip is saved and gives its id on stderr: it is in the library all the same.
    package static func printSaved(_ recording: Recording, json: Bool) throws {
        do {
            try print(recording, json: json) { $0.id.description }
        } catch var error as CraveyError {
            error.message = "The clip \"\(recording.title)\" is saved in the library as \(recording.id.description), but its id could not be printed: " + error.message
            throw error
        }
    }

    /// Says on stderr when the title or notes given had spaces at their ends, which are removed.
    package static func noteTrimmed(title: String?, notes: String?) {
        for (name, text) in [("title", title), ("notes", notes)] {
            guard let text, text.trimmingCharacters(in: .whitespacesAndNewlines) != text,
                  !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { continue }
            diagnostic("cravey: note: the spaces at the ends of the \(name) were removed.")
        }
    }

    /// Prints recordings: a JSON array with `--json`, else a table of `columns` (each a heading
    /// and how to show a recording under it), or a hint on stderr when there are none.
    package static func printRecordings(_ recordings: [Recording], json: Bool, tagged tag: String? = nil,
                                columns: KeyValuePairs<String, (Recording) -> String>) throws {
        if recordings.isEmpty && !json {
            if let tag { return diagnostic("No recording is tagged \"\(Format.visible(tag))\" (`cravey tag ID +\(Format.visible(tag))` tags one).") }
            return diagnostic("No recordings yet. Record one with `cravey record`.")
        }
        try print(recordings, json: json) { recordings in
            Format.table(columns.map(\.key), recordings.map { recording in columns.map { $0.value(recording) } })
        }
    }

    /// Runs a write to stdout and turns its failure into the one the command ends with.
    private static func checked(_ write: () throws -> Void) throws {
        do {
            try write()
        } catch {
            throw outputError(error)
        }
    }

    /// What a failed write to stdout means for the command: see ``write(_:)``.
    static func outputError(_ error: any Error) -> any Error {
        guard let errno = error as? Errno else { return error }
        if errno == .brokenPipe { return OutputClosed() }
        let fix = errno == .noSpace || errno == .diskQuotaExceeded
            ? "Free some disk space, or send the output elsewhere." : "Check where the output goes."
        return CraveyError(.cannotWrite, "Cannot write the output: \(errno). \(fix)", underlying: errno)
    }
}

/// What a write to stdout throws when its reader has gone (a closed pipe: `cravey list | head`):
/// no failure, the command only stops. Each executable's `main` ends with status 0 for it.
package struct OutputClosed: Error {
    package init() {}
}

/// How the CLI shows dates and durations to a person.
package enum Format {
    /// "Nov 22, 2026 3:42 PM" in local time.
    package static func date(_ date: Date) -> String {
        RecordingMetadata.displayDate(date)
    }

    /// "0:07", "12:30", "1:02:03".
    package static func duration(_ seconds: Double) -> String {
        RecordingMetadata.displayDuration(seconds)
    }

    /// How much of a clip `duration` seconds long the transcriber has heard, `heard` seconds of
    /// it, in percent from 0 to 100, as the progress shows it; nil when it cannot be told (a
    /// clip of no length, or a progress that is not a number).
    package static func percent(heard: Double, of duration: Double) -> Int? {
        guard heard.isFinite, duration.isFinite, duration > 0 else { return nil }
        return Int(min(100, max(0, heard / duration * 100)))
    }

    /// The first 8 characters of a recording's id, as `list` shows it; any command takes it as the id.
    package static func shortID(_ recording: Recording) -> String {
        String(recording.id.description.prefix(8))
    }

    /// Stored text made safe for a terminal: a line break shows as "⏎" and any other control
    /// character (C0, DEL, C1: ESC, BEL, CSI...) as "<U+001B>", so a title from an old row or a
    /// hand-edited database cannot move the cursor, recolour or retitle the terminal.
    package static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                shown.append("⏎")
            } else if scalar.properties.generalCategory == .control {
                shown.append(contentsOf: String(format: "<U+%04X>", scalar.value).unicodeScalars)
            } else {
                shown.append(scalar)
            }
        }
        return String(shown)
    }

    /// Left-aligns columns by character count.
    package static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
