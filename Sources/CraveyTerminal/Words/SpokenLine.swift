import CraveyKit

/// The words being said at a moment of a clip, for a player line: the sentence said then
/// (``Transcript/sentences``), the word being said marked, fitted to a width. A value worked out
/// from the transcript once; ``at(_:)`` and ``text(at:width:marking:)`` are pure, tested without a
/// terminal.
package struct SpokenLine: Sendable, Equatable {
    /// The sentences, each its words' texts (controls made visible) and times.
    let sentences: [[Transcript.Word]]

    /// How a sentence shown after its end stays: until the next begins, or this long after it ends.
    static let lingering = 2.0

    /// How the word being said is marked.
    package enum Marking: Sendable {
        /// Reverse video (`ESC [7m` ... `ESC [27m`), on a terminal that draws it.
        case reverse
        /// In brackets ("[word]"), under NO_COLOR.
        case brackets
        /// Not at all: the sentence alone (a terminal that only prints lines, TERM=dumb).
        case none
    }

    package init(_ transcript: Transcript) {
        sentences = transcript.sentences.map { sentence in
            sentence.map { Transcript.Word(start: $0.start, end: $0.end, text: Format.visible($0.text)) }
        }
    }

    /// The sentence said at `seconds` into the clip and the word of it being said then: the
    /// last one begun, until the next begins (the last word of a sentence stays marked while the
    /// sentence shows: Whisper's word ends come early, and a mark that blinks by is not read);
    /// nil when no sentence is said: before the first, or in a pause more than ``lingering``
    /// seconds after one ends.
    package func at(_ seconds: Double) -> (sentence: Int, word: Int)? {
        guard let index = sentences.lastIndex(where: { $0.first!.start <= seconds }) else { return nil }
        let words = sentences[index]
        guard seconds <= words.last!.end + Self.lingering, let word = words.lastIndex(where: { $0.start <= seconds }) else { return nil }
        return (index, word)
    }

    /// The sentence said at `seconds`, within `width` columns, with the word said then marked;
    /// empty when none is said. A sentence wider than `width` is shown a part at a time: the
    /// part that holds the word being said, "…" where words are left out, so that the line
    /// moves on a part at a time as the words are said, never word by word.
    package func text(at seconds: Double, width: Int, marking: Marking) -> String {
        guard let said = parts(at: seconds, width: width, marked: marking == .brackets ? 2 : 0) else { return "" }
        switch marking {
        case .reverse where !said.word.isEmpty: return said.before + "\u{1B}[7m" + said.word + "\u{1B}[27m" + said.after
        case .brackets where !said.word.isEmpty: return said.before + "[" + said.word + "]" + said.after
        default: return said.before + said.word + said.after
        }
    }

    /// ``text(at:width:marking:)`` in three: what comes before the word being said, the word
    /// (empty for a word cut to fit alone), and what comes after, for a screen that marks it in its own way;
    /// the marks take `marked` columns. Nil when no sentence is said.
    func parts(at seconds: Double, width: Int, marked extra: Int = 0) -> (before: String, word: String, after: String)? {
        guard width > 2, let said = at(seconds) else { return nil }
        let words = sentences[said.sentence].map(\.text), current = said.word
        let widths = words.map { TerminalScreen.width(of: $0) }
        // The parts: as many words as fit, each part but the first after a "…", each but the
        // last before one, with room for the marks of the one word said.
        var parts: [Range<Int>] = []
        var start = 0
        while start < words.count {
            var end = start, used = (start > 0 ? 1 : 0) + extra
            while end < words.count {
                let needed = (end > start ? 1 : 0) + widths[end]
                let after = end + 1 < words.count ? 2 : 0  // room for " …" after it
                if used + needed + after > width && end > start { break }
                used += needed
                end += 1
            }
            parts.append(start..<end)
            start = end
        }
        // Every word is in a part: the one that holds the word said is shown.
        let part = parts.first { $0.contains(current) }!
        let visible = part.reduce(0) { $0 + widths[$1] } + (part.count - 1) + extra
            + (part.lowerBound > 0 ? 1 : 0) + (part.upperBound < words.count ? 2 : 0)
        guard visible <= width else {
            // A word wider than the line alone: cut, unmarked.
            let (cut, _) = TerminalScreen.fitted(words[part.lowerBound], width: width)
            return (String(String.UnicodeScalarView(cut.compactMap { Unicode.Scalar(UInt32(bitPattern: $0)) })), "", "")
        }
        let opening = part.lowerBound > 0 ? "…" : "", closing = part.upperBound < words.count ? " …" : ""
        let before = words[part.lowerBound..<current].map { $0 + " " }.joined()
        let after = words[(current + 1)..<part.upperBound].map { " " + $0 }.joined()
        return (opening + before, words[current], after + closing)
    }
}
