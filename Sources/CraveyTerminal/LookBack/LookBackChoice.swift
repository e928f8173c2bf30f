import CraveyKit

/// The look back's choices once a recording is saved, listed once: `cravey record`'s look back
/// (``Preview``) and the home screen's (``KeyTable``) offer these, with these keys, labels and
/// questions.
enum LookBackChoice: CaseIterable {
    /// Plays the clip back, not counted.
    case play
    /// Changes one of its words: the title, the notes, the purpose.
    case title, notes, purpose
    /// Deletes it, asked first (``discardQuestion``).
    case discard
    /// Keeps it as it is: Enter.
    case keep

    /// The key that makes the choice; nil for `keep`, which is Enter.
    var key: Character? {
        switch self {
        case .play: "p"
        case .title: "t"
        case .notes: "n"
        case .purpose: "u"
        case .discard: "d"
        case .keep: nil
        }
    }

    /// What the keys line says of it ("p play").
    var label: String {
        switch self {
        case .play: "p play"
        case .title: "t title"
        case .notes: "n notes"
        case .purpose: "u purpose"
        case .discard: "d discard"
        case .keep: "Enter keep"
        }
    }

    /// What the home screen's help says it does.
    var help: String {
        switch self {
        case .play: "play it (not counted)"
        case .title: "title"
        case .notes: "notes"
        case .purpose: "purpose"
        case .discard: "discard (asks first)"
        case .keep: "keep"
        }
    }

    /// The choice `key` makes, if any (Enter is ``keep``'s).
    init?(_ key: Character) {
        guard let choice = Self.allCases.first(where: { $0.key == key || ($0 == .keep && (key == "\n" || key == "\r")) }) else { return nil }
        self = choice
    }

    /// The word a choice changes: 0 the title, 1 the notes, 2 the purpose.
    var field: Int? {
        switch self {
        case .title: 0
        case .notes: 1
        case .purpose: 2
        default: nil
        }
    }

    /// The keys line: every choice's label.
    static let keys = allCases.map(\.label).joined(separator: " · ")

    /// What a word (0 the title, 1 the notes, 2 the purpose) is asked with, and its limits.
    static let questions = [
        "Title (at most \(RecordingMetadata.maxTitleLength) characters; empty: \"Recording <date>\")",
        "Notes (at most \(RecordingMetadata.maxNotesLength) characters; empty: none)",
        "Purpose (motivational, craving, reflection or milestone; empty: none)",
    ]

    static let discardQuestion = "Discard recording? This cannot be undone. [y/N]"
}
