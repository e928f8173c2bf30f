import ArgumentParser
import CraveyCore

struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change a recording's title, notes or purpose.",
        discussion: "--title \"\" restores the automatic \"Recording <date>\" title; --notes \"\" clears the notes; --purpose none clears the purpose.")

    @OptionGroup var target: RecordingArgument
    // Unconditional: a title is text, and "-2+3" is a title, not an option.
    @Option(parsing: .unconditional, help: "New title, at most 40 characters; spaces at its ends are removed.") var title: String?
    @Option(parsing: .unconditional, help: "New notes, at most 200 characters; spaces and line breaks at their ends are removed.") var notes: String?
    @Option(help: "New purpose: motivational, craving, reflection, milestone or none.", completion: Completion.purposes) var purpose: String?
    @Flag(help: "Print the changed recording as JSON.") var json = false

    func validate() throws {
        if title == nil && notes == nil && purpose == nil {
            throw ValidationError("Nothing to change: give --title, --notes or --purpose.")
        }
    }

    func run() throws {
        let (library, recording) = try target.open()
        let purpose = try purpose.map { try RecordingMetadata.purpose(named: $0) }
        let edited = try library.edit(recording.id) { metadata in
            // --title "" and --notes "" are given: they restore the automatic title, clear the notes.
            if let title { metadata.title = title.isEmpty ? nil : title }
            if let notes { metadata.notes = notes.isEmpty ? nil : notes }
            if let purpose { metadata.purpose = purpose }
        }
        Terminal.noteTrimmed(title: title, notes: notes)
        if json { return try Terminal.printJSON(edited) }
        Terminal.diagnostic("Updated \"\(Format.visible(edited.title))\".")
    }
}
