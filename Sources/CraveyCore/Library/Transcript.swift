import Foundation

/// The words said in a clip, each with when it starts and ends, as the transcriber heard them
/// (`cravey transcribe`, `LibraryTranscripts.transcript(of:)`).
///
/// A clip keeps it beside its media (`Recordings/<type>_<uuid>.words.json`, the part
/// ``ClipFiles/Part/transcript``): a backup carries it, delete removes it, a trim shifts its
/// times (``trimmed(from:to:)``), and a noise clean-up, which changes the sound, drops it.
package struct Transcript: Sendable, Equatable, Codable {
    /// One word, with its times in seconds into the clip.
    package struct Word: Sendable, Equatable, Codable {
        package var start: Double
        package var end: Double
        /// The word as written, punctuation attached ("midnight.").
        package var text: String
        /// How sure the transcriber was of it, from 0 to 1 (faster-whisper's probability of the
        /// word); nil when not said. It chooses where a heard-as form is written
        /// (``Transcript/writing(_:)``) and is not stored: a clip's words never hold it.
        package var probability: Double?

        package init(start: Double, end: Double, text: String, probability: Double? = nil) {
            (self.start, self.end, self.text, self.probability) = (start, end, text, probability)
        }
    }

    /// The language heard (or set), as an ISO 639-1 code ("en"); empty when nothing was said.
    package var language: String
    /// The words, in the order they are said.
    package var words: [Word]

    package init(language: String, words: [Word]) {
        self.language = language
        self.words = words
    }

    /// The languages Whisper (the base model the transcriber runs) knows, by their codes: those
    /// the `transcribe.language` setting takes beside `auto`.
    package static let languages: Set<String> = [
        "af", "am", "ar", "as", "az", "ba", "be", "bg", "bn", "bo", "br", "bs", "ca", "cs", "cy", "da", "de", "el",
        "en", "es", "et", "eu", "fa", "fi", "fo", "fr", "gl", "gu", "ha", "haw", "he", "hi", "hr", "ht", "hu", "hy",
        "id", "is", "it", "ja", "jw", "ka", "kk", "km", "kn", "ko", "la", "lb", "ln", "lo", "lt", "lv", "mg", "mi",
        "mk", "ml", "mn", "mr", "ms", "mt", "my", "ne", "nl", "nn", "no", "oc", "pa", "pl", "ps", "pt", "ro", "ru",
        "sa", "sd", "si", "sk", "sl", "sn", "so", "sq", "sr", "su", "sv", "sw", "ta", "te", "tg", "th", "tk", "tl",
        "tr", "tt", "uk", "ur", "uz", "vi", "yi", "yo", "zh",
    ]

    /// The largest transcript file read: 16 MiB, far more than a day of speech (about 2 MB).
    package static let largestFile = 16 << 20

    /// The latest time a word may have, in seconds: 999,999 s (11 days), what the search index
    /// keeps (``ClipSearch``) and far past any clip's end.
    package static let latestTime = 999_999.0

    /// The transcript a file holds: the JSON the transcriber writes and ``data`` gives back; nil
    /// for bytes that are not one (a language that is not one of ``languages`` nor empty, a time
    /// that is not a number from 0 to ``latestTime``, an end before its start, a word that is
    /// empty or holds a control character, a file over ``largestFile``).
    package init?(data: Data) {
        guard data.count <= Self.largestFile, let decoded = try? JSONDecoder().decode(Transcript.self, from: data),
              decoded.isWellFormed else { return nil }
        self = decoded
    }

    /// Whether every reader takes it: a language of ``languages`` (or none) and well-formed
    /// words (``init(data:)``).
    package var isWellFormed: Bool {
        (language.isEmpty || Self.languages.contains(language)) && words.allSatisfy(\.isWellFormed)
    }

    /// Whether it is stored as it is: well-formed, and its file (``data``) within
    /// ``largestFile``, so that every reader takes it back.
    package var isStorable: Bool {
        isWellFormed && data.count <= Self.largestFile
    }

    /// The words of a clip `duration` seconds long: a word said from its end on is dropped, and
    /// one still said at its end ends there (a transcriber may hear past the sound's end).
    package func within(_ duration: Double) -> Transcript {
        let kept = words.filter { $0.start < duration }.map { Word(start: $0.start, end: min($0.end, duration), text: $0.text) }
        return Transcript(language: language, words: kept)
    }

    /// The file's bytes: compact JSON, keys sorted, `{"language":"en","words":[{"end":0.9,"start":0.52,"text":"Hello"}]}`.
    package var data: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }

    /// The words a cut of the clip to `start`-`end` seconds keeps, their times moved by `start`:
    /// those said wholly inside the cut (a word cut in two is dropped, as its sound is).
    package func trimmed(from start: Double, to end: Double) -> Transcript {
        let kept = words.filter { $0.start >= start - 0.0005 && $0.end <= end + 0.0005 }.map { word in
            Word(start: max(0, word.start - start), end: min(end - start, max(0, word.end - start)), text: word.text)
        }
        return Transcript(language: language, words: kept)
    }

    /// The words a backup's transcript gives a clip `duration` seconds long (``within(_:)``);
    /// nil when a word starts more than ``overshoot`` past its end: not this clip's words.
    package func restored(for duration: Double) -> Transcript? {
        guard words.allSatisfy({ $0.start <= duration + Self.overshoot }) else { return nil }
        return within(duration)
    }

    /// How far past a clip's end an older cravey may have stored a word (as the transcriber
    /// heard it, before ``within(_:)``): a second.
    package static let overshoot = 1.0

    /// The words in sentences, as a person reads them: a sentence ends at a word ending in ".",
    /// "?" or "!", after 12 words, or before a pause of a second or more. Every word is in one,
    /// in order (subtitles' cues, the player line, `cravey transcript --edit`).
    package var sentences: [ArraySlice<Word>] {
        var sentences: [ArraySlice<Word>] = []
        var start = words.startIndex
        for index in words.indices {
            let ends = index + 1 == words.endIndex || index + 1 - start >= 12
                || words[index].text.last.map { ".?!".contains($0) } == true || words[index + 1].start - words[index].end >= 1
            if ends {
                sentences.append(words[start...index])
                start = index + 1
            }
        }
        return sentences
    }

    /// A title made of the first words said, for a clip given none: the first sentence, or as
    /// many of its words as a title holds (``RecordingMetadata/maxTitleLength`` characters, cut
    /// where a word ends), without the punctuation at its ends; nil when nothing was said.
    package var proposedTitle: String? {
        let limit = RecordingMetadata.maxTitleLength
        var title = ""
        for word in words {
            let longer = title.isEmpty ? word.text : title + " " + word.text
            guard longer.count <= limit else { break }
            title = longer
            if word.text.last.map({ ".?!".contains($0) }) == true { break }
        }
        if title.isEmpty, let first = words.first { title = String(first.text.prefix(limit)) }
        let proposed = title.trimmingCharacters(in: CharacterSet(charactersIn: ".,;:!?…-–— "))
        return proposed.isEmpty ? nil : proposed
    }

    /// The sentences as text to correct, one a line (``sentences``), as `cravey transcript --edit` hands them to an editor.
    package var correctable: String {
        sentences.map { $0.map(\.text).joined(separator: " ") + "\n" }.joined()
    }

    /// The lines of a corrected text (``correctable`` as an editor saved it), ending as any
    /// editor ends them ("\n", "\r\n", one Character, or "\r"), the last with an end or not; a
    /// word's own U+2028 stays in its line.
    package static func lines(of text: String) -> [String] {
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }.map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The transcript with its sentences corrected to `lines` (``correctable`` as a person
    /// changed it, one line a sentence): a sentence whose line is unchanged (spaces aside) keeps
    /// its words and their times; a changed one gets the line's words spread over the time the
    /// sentence took, each as long as its letters; a blank line drops the sentence. Nil when the
    /// lines are not one a sentence.
    package func corrected(_ lines: [String]) -> Transcript? {
        let sentences = self.sentences
        guard lines.count == sentences.count else { return nil }
        var words: [Word] = []
        for (sentence, line) in zip(sentences, lines) {
            let typed = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard typed != sentence.map(\.text) else {
                words += sentence
                continue
            }
            let (start, end) = (sentence.first!.start, sentence.last!.end)
            let total = Double(typed.reduce(0) { $0 + max($1.count, 1) })
            var at = start
            for text in typed {
                let length = (end - start) * Double(max(text.count, 1)) / total
                words.append(Word(start: at, end: min(end, at + length), text: text))
                at += length
            }
        }
        guard words.allSatisfy(\.isWellFormed) else { return nil }
        return Transcript(language: language, words: words)
    }

    /// The words as one text, separated by spaces.
    package var text: String { words.map(\.text).joined(separator: " ") }
}

extension Transcript.Word {
    var isWellFormed: Bool {
        start >= 0 && end >= start && end <= Transcript.latestTime && !text.isEmpty && probability.map { (0...1).contains($0) } != false
            && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
