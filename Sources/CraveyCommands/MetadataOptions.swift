import ArgumentParser
import CraveyCore

/// The words a person gives a new clip: `--title`, `--notes`, `--purpose` (record and import).
public struct MetadataOptions: ParsableArguments {
    @Option(help: "Title, at most 40 characters (default: \"Recording <date>\"; import: the file's name).")
    public var title: String?

    @Option(help: "Notes, at most 200 characters.")
    public var notes: String?

    @Option(help: "Purpose: motivational, craving, reflection or milestone.", completion: Completion.purposes)
    public var purpose: String?

    public init() {}

    /// The validated metadata; throws `.invalidInput` for a title or notes too long or holding a
    /// control character, or an unknown purpose.
    public func metadata() throws -> RecordingMetadata {
        try RecordingMetadata(title: title, notes: notes, purpose: try purpose.flatMap(RecordingMetadata.purpose(named:)))
    }
}
