import ArgumentParser
import CraveyCore
import Foundation

struct Info: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show everything about one recording.")

    @OptionGroup var options: LibraryOptions
    @Argument(help: "The recording's id, or any unique prefix of it.") var id: String
    @Flag(help: "Print the recording as JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            let library = try options.open()
            let recording = try FetchRecordingsUseCase(library: library).execute(idPrefix: id)
            if json { return Terminal.printJSON(recording) }
            let file = library.storage.libraryURL.appendingPathComponent(recording.filePath).path
            let rows: [(String, String)] = [
                ("ID", recording.id.uuidString.lowercased()),
                ("Title", recording.title),
                ("Type", recording.type.rawValue),
                ("Purpose", recording.purpose?.rawValue ?? "none"),
                ("Notes", recording.notes ?? ""),
                ("Created", Format.date(recording.createdAt)),
                ("Duration", Format.duration(recording.duration) + String(format: " (%.3f s)", recording.duration)),
                ("Size", FileStorageManager.formatBytes(recording.fileSize)),
                ("Plays", String(recording.playCount)),
                ("Last played", recording.lastPlayedAt.map(Format.date) ?? "never"),
                ("File", file),
            ] + (recording.thumbnailPath.map { [("Thumbnail", library.storage.libraryURL.appendingPathComponent($0).path)] } ?? [])
            Terminal.output(rows.map { "\($0.0):".padding(toLength: 13, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n"))
        }
    }
}

struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change a recording's title, notes or purpose.",
        discussion: "--title \"\" restores the automatic \"Recording <date>\" title; --notes \"\" clears the notes; --purpose none clears the purpose.")

    @OptionGroup var options: LibraryOptions
    @Argument(help: "The recording's id, or any unique prefix of it.") var id: String
    @Option(help: "New title, at most 40 characters.") var title: String?
    @Option(help: "New notes, at most 200 characters.") var notes: String?
    @Option(help: "New purpose: motivational, craving, reflection, milestone or none.") var purpose: String?
    @Flag(help: "Print the changed recording as JSON.") var json = false

    func validate() throws {
        if title == nil && notes == nil && purpose == nil {
            throw ValidationError("Nothing to change: give --title, --notes or --purpose.")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let library = try options.open()
            let recording = try FetchRecordingsUseCase(library: library).execute(idPrefix: id)
            let changes = EditRecordingUseCase.Changes(
                title: title, notes: notes,
                purpose: try purpose.map { try RecordingMetadata.purpose(named: $0) })
            let edited = try EditRecordingUseCase(library: library).execute(id: recording.id, changes: changes)
            if json { return Terminal.printJSON(edited) }
            Terminal.diagnostic("Updated \"\(edited.title)\".")
        }
    }
}

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete one recording: its entry, its file and its thumbnail.")

    @OptionGroup var options: LibraryOptions
    @Argument(help: "The recording's id, or any unique prefix of it.") var id: String
    @Flag(help: "Do not ask for confirmation (needed when stdin is not a terminal).") var yes = false

    func run() async throws {
        try await reportingErrors {
            let library = try options.open()
            let recording = try FetchRecordingsUseCase(library: library).execute(idPrefix: id)
            guard try confirm("Delete '\(recording.title)'? This cannot be undone.", yes: yes) else { return }
            try DeleteRecordingUseCase(library: library).execute(id: recording.id)
            Terminal.diagnostic("Deleted \"\(recording.title)\".")
        }
    }
}

struct DeleteAll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-all",
        abstract: "Delete every recording, file and thumbnail in the library.")

    @OptionGroup var options: LibraryOptions
    @Flag(help: "Do not ask for confirmation (needed when stdin is not a terminal).") var yes = false
    @Flag(help: "Print what was deleted as JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            let library = try options.open()
            let count = try library.repository.count()
            guard try confirm("Delete all \(count) recordings? This cannot be undone.", yes: yes) else { return }
            let summary = try DeleteAllRecordingsUseCase(library: library).execute()
            if json { return try Terminal.printJSON(summary) }
            Terminal.diagnostic("Deleted \(summary.recordings) recordings (\(summary.files) files, \(FileStorageManager.formatBytes(summary.bytes))).")
        }
    }
}

/// Asks on a terminal; refuses (exit 64) when stdin is not one and `--yes` was not given.
func confirm(_ question: String, yes: Bool) throws -> Bool {
    if yes { return true }
    guard Terminal.stdinIsTTY else {
        throw CraveyError(.invalidInput, "Refusing to delete without confirmation: stdin is not a terminal. Add --yes to delete anyway.")
    }
    Terminal.diagnostic("\(question) [y/N] ", terminator: "")
    let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
    guard answer == "y" || answer == "yes" else {
        Terminal.diagnostic("Nothing was deleted.")
        return false
    }
    return true
}
