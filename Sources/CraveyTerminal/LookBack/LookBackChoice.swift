import CraveyKit

/// The look back's choices once a recording is saved, listed once: `cravey record`'s look back
/// (``Preview``) and the home screen's offer these, with these questions; their keys, labels and
/// help are the key table's (``KeyTable``).
enum LookBackChoice {
    /// Plays the clip back, not counted.
    case play
    /// Changes one of its words: the title, the notes, the purpose.
    case title, notes, purpose
    /// Deletes it, asked first (``discardQuestion``).
    case discard
    /// Keeps it as it is: Enter or Escape.
    case keep

    /// The word a choice changes: 0 the title, 1 the notes, 2 the purpose.
    var field: Int? {
        switch self {
        case .title: 0
        case .notes: 1
        case .purpose: 2
        default: nil
        }
    }

    /// What a word (0 the title, 1 the notes, 2 the purpose) is asked with, and its limits.
    static let questions = [
        "Title (at most \(RecordingMetadata.maxTitleLength) characters; empty: \"Recording <date>\")",
        "Notes (at most \(RecordingMetadata.maxNotesLength) characters; empty: none)",
        "Purpose (motivational, craving, reflection or milestone; empty: none)",
    ]

    static let discardQuestion = "Discard recording? This cannot be undone. [y/N]"
}
