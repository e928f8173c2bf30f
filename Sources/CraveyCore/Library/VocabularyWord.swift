import Foundation

/// One of a person's own words (a name, a place, a term) that the transcriber is given as a hot
/// word, with the forms it is heard as when it is still heard one steady wrong way ("shivon" for
/// "Siobhan"), each written as the word in the words stored (``Transcript/writing(_:)``). Kept in
/// the library (``LibraryVocabulary``).
package struct VocabularyWord: Sendable, Equatable, Codable {
    /// The word as it is written: "Siobhan".
    package let word: String
    /// The forms it is heard as, each one or more words ("shivon", "if i"), lowercase.
    package let heardAs: [String]

    /// The longest word or heard-as form, in characters.
    package static let longest = 64

    /// `word`, its spaces trimmed, with `heardAs` (lowercased, each once, without the word
    /// itself). Throws ``CraveyError`` `.invalidInput`, naming the fix, for a word or form that
    /// is empty, longer than ``longest``, or holds a control character, or a word of more than
    /// one word (a hot word is one word).
    package init(_ word: String, heardAs: [String] = []) throws(CraveyError) {
        let written = word.trimmingCharacters(in: .whitespacesAndNewlines)
        try Self.check(written, "word")
        guard !written.contains(where: \.isWhitespace) else {
            throw CraveyError(.invalidInput, "\"\(written)\" is more than one word: add each word of it on its own.")
        }
        var forms: [String] = []
        for form in heardAs {
            let form = form.split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased()
            try Self.check(form, "heard-as form")
            if !forms.contains(form) && form != written.lowercased() { forms.append(form) }
        }
        self.word = written
        self.heardAs = forms
    }

    /// Decodes a word as ``init(_:heardAs:)`` takes it: one it refuses does not decode (a backup's).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(try container.decode(String.self, forKey: .word), heardAs: try container.decode([String].self, forKey: .heardAs))
    }

    /// Refuses `text` as a `what` (a word, a heard-as form) no transcript would write.
    private static func check(_ text: String, _ what: String) throws(CraveyError) {
        guard !text.isEmpty else { throw CraveyError(.invalidInput, "A \(what) cannot be empty: give its letters.") }
        guard text.count <= longest else {
            throw CraveyError(.invalidInput, "The \(what) \"\(text.prefix(20))...\" is \(text.count) characters, more than the \(longest) a \(what) may have.")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) else {
            throw CraveyError(.invalidInput, "The \(what) \"\(text.debugDescription.dropFirst().dropLast())\" holds a control character: type its letters alone.")
        }
    }
}

extension Transcript {
    /// The words with each heard-as form of `vocabulary` written as its word where the
    /// transcriber was unsure of them: "Call shivon." is "Call Siobhan.", its times kept. A form
    /// of several words ("if i") takes the words it spans into one, from the first's start to the
    /// last's end. Forms are matched by their letters and digits, case and accents folded, and
    /// the punctuation after the last word heard stays ("shivon," is "Siobhan,"). The longest
    /// form is tried first.
    ///
    /// A form replaces only words heard with a probability under ``unsure`` (their geometric
    /// mean: one word's own, or the one per word of all the form spans): Whisper, hearing a name
    /// it does not know, guesses common words with little confidence, while the same words said
    /// plainly are heard surely ("if I" in "call you if I need help" at 0.81 and 0.95; "Aoife"
    /// heard as "If I" at 0.37 and 0.87, or 0.30 and 0.29). A word whose probability was not
    /// said counts as unsure. The words returned hold no probability (they are stored so).
    package func writing(_ vocabulary: [VocabularyWord]) -> Transcript {
        let forms = vocabulary.flatMap { entry in entry.heardAs.map { (words: $0.split(separator: " ").map { Self.key(String($0)) }, word: entry.word) } }
            .filter { !$0.words.isEmpty && !$0.words.contains("") }
            .sorted { $0.words.count > $1.words.count }
        let keys = words.map { Self.key($0.text) }
        var written: [Word] = []
        var index = 0
        while index < words.count {
            if let form = forms.first(where: { form in
                index + form.words.count <= words.count && Array(keys[index..<index + form.words.count]) == form.words
                    && Self.isUnsure(words[index..<index + form.words.count])
            }) {
                let last = words[index + form.words.count - 1]
                let trailing = String(last.text.reversed().prefix { !$0.isLetter && !$0.isNumber }.reversed())
                written.append(Word(start: words[index].start, end: last.end, text: form.word + trailing))
                index += form.words.count
            } else {
                written.append(Word(start: words[index].start, end: words[index].end, text: words[index].text))
                index += 1
            }
        }
        return Transcript(language: language, words: written)
    }

    /// The probability per word under which words a heard-as form matches are written as its
    /// word (``writing(_:)``): 0.6, so that words said plainly are left as they are. Measured
    /// with Whisper base on espeak-ng's speech (geometric means): "if I" said plainly, 16 times
    /// in three voices, alone or beside another sentence, 0.62 to 0.94 (the lowest where "If"
    /// starts a sentence); "Aoife" heard as "If I" 8 times, 0.30 to 0.81: under 0.6 in 5, the
    /// three over it where another sentence came before it.
    package static let unsure = 0.6

    /// Whether `words` were heard with a geometric mean probability under ``unsure``, or one
    /// of them with none said.
    static func isUnsure(_ words: ArraySlice<Word>) -> Bool {
        let probabilities = words.compactMap(\.probability)
        guard probabilities.count == words.count, !probabilities.isEmpty else { return true }
        return probabilities.reduce(1, *) < pow(unsure, Double(probabilities.count))
    }

    /// A word's letters and digits, case and accents folded: how a heard-as form is matched.
    static func key(_ text: String) -> String {
        String(text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).unicodeScalars
            .filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }
}
