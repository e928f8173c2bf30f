import Foundation
import GRDB

/// A clip's tags: the words a person files a clip under (`cravey tag ID +calm -work`), what a
/// tag may be, how the `recording` table keeps them, and the requests that change and find
/// them. Like ``RecordingRepository`` it takes no lock: the transaction is the caller's.
///
/// A tag is held to what a title is held to: printable and bounded, refused otherwise
/// (`.invalidInput`, exit 64), never cut. It is one word of at most ``maxLength`` characters, kept
/// in lower case; a clip has at most ``maxCount``. The column holds them sorted, each between
/// spaces (" calm sister ", "" for none), so a tag is found with `instr` and reads as itself in
/// `sqlite3`.
package struct ClipTags {
    package static let maxLength = 30
    package static let maxCount = 20

    private let db: Database

    package init(_ db: Database) {
        self.db = db
    }

    /// `text` as a tag: lower case; refused when it is empty, longer than ``maxLength``
    /// characters, starts with `+` or `-` (which add and remove), or holds a space, a `#` or `,`,
    /// a control or an invisible formatting character.
    package static func checked(_ text: String) throws(CraveyError) -> String {
        let shown = CraveyError.quoted(text, "\"")
        guard !text.isEmpty else { throw CraveyError(.invalidInput, "A tag cannot be empty: give a word, as `cravey tag ID +calm`.") }
        guard text.count <= maxLength else {
            throw CraveyError(.invalidInput, "The tag \(shown) is \(text.count) characters long; the limit is \(maxLength). Shorten it and try again.")
        }
        for (index, character) in text.enumerated() {
            for scalar in character.unicodeScalars {
                let category = scalar.properties.generalCategory
                if category == .control || category == .format {
                    throw CraveyError(.invalidInput, "The tag \(shown) holds \(RecordingMetadata.describe(scalar)) at character \(index + 1): a tag is printable text.")
                }
                if scalar.properties.isWhitespace || scalar == "#" || scalar == "," {
                    throw CraveyError(.invalidInput, "The tag \(shown) holds \(scalar.properties.isWhitespace ? "a space" : "'\(scalar)'") at character \(index + 1): a tag is one word (join words with - or _).")
                }
            }
        }
        guard let first = text.first, first != "+", first != "-" else {
            throw CraveyError(.invalidInput, "The tag \(shown) starts with '\(text.first!)', which adds (+) or removes (-) a tag: give the word after it.")
        }
        return folded(text)
    }

    /// A tag as it is kept and looked for: lower case, its accents composed (Unicode's NFC), so
    /// that `café` typed with a combining accent is the `café` typed with one key.
    package static func folded(_ text: some StringProtocol) -> String {
        String(text).lowercased().precomposedStringWithCanonicalMapping
    }

    /// A tag a person names to find clips by: ``checked(_:)``, a `#` before it allowed (`#calm`,
    /// as the home screen's filter takes it).
    package static func named(_ text: String) throws(CraveyError) -> String {
        try checked(text.hasPrefix("#") ? String(text.dropFirst()) : text)
    }

    /// The tags as the column keeps them: " calm sister ", "" for none.
    package static func stored(_ tags: [String]) -> String {
        tags.isEmpty ? "" : " " + tags.joined(separator: " ") + " "
    }

    /// The tags of a stored column as it holds them (nil or "": none). ``stored(_:)`` writes
    /// them sorted and each once, so every row read (a list of 100,000) only splits; a column
    /// edited by hand into another order is what doctor reports (`Recording.problems`).
    package static func parse(_ stored: String?) -> [String] {
        guard let stored, !stored.isEmpty else { return [] }
        return stored.split(separator: " ").map(String.init)
    }

    /// The recordings tagged `tag` (a tag as ``checked(_:)`` gives it): kept so, or with its
    /// accents decomposed, as cravey kept a tag typed so before it composed them.
    package static func tagged(_ tag: String) -> SQLExpression {
        let decomposed = tag.decomposedStringWithCanonicalMapping
        let found = SQL("instr(\(Recording.Columns.tags), \(" " + tag + " ")) > 0").sqlExpression
        guard !decomposed.utf8.elementsEqual(tag.utf8) else { return found }
        return found || SQL("instr(\(Recording.Columns.tags), \(" " + decomposed + " ")) > 0").sqlExpression
    }

    /// Adds and removes tags of `id` (each ``checked(_:)`` first; a tag both added and removed
    /// is removed); returns its row as it now is. `.notFound` when it is gone, `.invalidInput`
    /// for a tag refused or more than ``maxCount`` tags, with nothing changed.
    package func change(_ id: RecordingID, adding: [String], removing: [String]) throws -> Recording {
        let added = try adding.map(Self.checked), removed = try removing.map(Self.checked)
        guard var recording = try Recording.fetchOne(db, key: id) else {
            throw CraveyError(.notFound, "The recording \(id.description) is no longer in the library.")
        }
        let tags = Set(recording.tags).union(added).subtracting(removed).sorted()
        guard tags.count <= Self.maxCount else {
            throw CraveyError(.invalidInput, "A clip holds at most \(Self.maxCount) tags; this one would hold \(tags.count). Remove some (`-word`) first.")
        }
        guard tags != recording.tags else { return recording }
        try Recording.filter(key: id).updateAll(db, [Recording.Columns.tags.set(to: Self.stored(tags))])
        recording.tags = tags
        return recording
    }

    /// Every tag some recording has, sorted.
    package func inUse() throws -> [String] {
        var tags: Set<String> = []
        for stored in try String.fetchAll(db, Recording.select(Recording.Columns.tags).filter(Recording.Columns.tags != "").distinct()) {
            tags.formUnion(Self.parse(stored).map(Self.folded))
        }
        return tags.sorted()
    }
}
