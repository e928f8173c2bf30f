import Foundation

extension RecordingMetadata {
    /// The title a clip imported without one gets: its file's name without the extension
    /// ("coach-talk" for coach-talk.mp3), which tells clips apart where the date does not.
    ///
    /// Each run of control characters (C0 and C1) becomes a space. A name longer than
    /// ``maxTitleLength`` characters is shortened at its last word boundary
    /// (whitespace, '-' or '_') within the first 39 and ends in "…"; with no boundary there it is
    /// cut at 39. Nobody typed it, so this cuts none of a person's input. nil when nothing is
    /// left (".m4a", "  .wav"): the clip gets the automatic "Recording <date>" title.
    public static func title(forFileAt source: URL) -> String? {
        let name = source.lastPathComponent
        let stem = name.lastIndex(of: ".").map { name[..<$0] } ?? name[...]
        var cleaned = String.UnicodeScalarView()
        for scalar in stem.unicodeScalars {
            if scalar.properties.generalCategory != .control {
                cleaned.append(scalar)
            } else if cleaned.last != " " {
                cleaned.append(" ")
            }
        }
        let title = String(cleaned).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { return nil }
        guard title.count > maxTitleLength else { return title }
        let isBoundary = { (character: Character) in character.isWhitespace || character == "-" || character == "_" }
        let head = title.prefix(maxTitleLength - 1)
        var kept = head
        // A boundary right after the 39 characters means they end with a whole word.
        if !isBoundary(title[head.endIndex]), let boundary = head.lastIndex(where: isBoundary) {
            kept = head[..<boundary]
        }
        while let last = kept.last, isBoundary(last) { kept = kept.dropLast() }
        return String(kept.isEmpty ? head : kept) + "…"
    }
}
