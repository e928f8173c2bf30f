import ArgumentParser
import CraveyCore

/// The words a person gives a new clip: `--title`, `--notes`, `--purpose` (record and import).
package struct MetadataOptions: ParsableArguments {
    // Unconditional: a title is text, and "-2+3" is a title, not an option.
    @Option(parsing: .unconditional,
            help: "Title, at most 40 characters; spaces at its ends are removed (default: \"Recording <date>\"; import: the file's name).")
    package var title: String?

    @Option(parsing: .unconditional, help: "Notes, at most 200 characters; spaces and line breaks at their ends are removed.")
    package var notes: String?

    @Option(help: "Purpose: motivational, craving, reflection or milestone (default: the clip.purpose setting, else none).",
            completion: Completion.purposes)
    package var purpose: String?

    package init() {}

    /// The validated metadata, the purpose `settings` choose when none is given; throws
    /// `.invalidInput` for a title or notes too long or holding a control character, or an
    /// unknown purpose.
    package func metadata(with settings: Settings) throws -> RecordingMetadata {
        let chosen = try purpose.map { try RecordingMetadata.purpose(named: $0) } ?? settings.purpose
        let metadata = try RecordingMetadata(title: title, notes: notes, purpose: chosen)
        Terminal.noteTrimmed(title: title, notes: notes)
        return metadata
    }
}
