@testable import CraveyCore
import CraveyTestSupport
import Foundation
import GRDB
import Testing

/// A person's own words (``LibraryVocabulary``) on a real library folder and SQLite file, and
/// their heard-as forms written as them in a transcript (``Transcript/writing(_:)``), as values.
@Suite("Vocabulary: a person's own words, and the forms they are heard as")
final class VocabularyTests: Sendable {
    let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-words-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// A transcript of `text`, a word a second from 0.5 s.
    func heard(_ text: String) -> Transcript {
        Transcript(language: "en", words: text.split(separator: " ").enumerated().map { index, word in
            Transcript.Word(start: 0.5 + Double(index), end: 1.2 + Double(index), text: String(word))
        })
    }

    @Test("a heard-as form is written as its word, its times and the punctuation after it kept; one of two words takes both; other words stay")
    func writesHeardAsForms() throws {
        let words = [try VocabularyWord("Siobhan", heardAs: ["shivon"]), try VocabularyWord("Aoife", heardAs: ["If I"]),
                     try VocabularyWord("Kaveh")]
        let written = heard("Call Shivon, tonight. If I believe in you. Shivonne stays.").writing(words)
        #expect(written.text == "Call Siobhan, tonight. Aoife believe in you. Shivonne stays.")
        #expect(written.words[1] == Transcript.Word(start: 1.5, end: 2.2, text: "Siobhan,"))
        #expect(written.words[3] == Transcript.Word(start: 3.5, end: 5.2, text: "Aoife"), "from the first's start to the last's end")
        #expect(heard("Nothing to change here.").writing(words) == heard("Nothing to change here."))
    }

    @Test("a heard-as form is written only where the words it matches were heard unsurely: under 0.6 a word (their geometric mean), or with no probability said; none is kept")
    func writesOnlyUnsureWords() throws {
        let words = [try VocabularyWord("Aoife", heardAs: ["if i"]), try VocabularyWord("Niamh", heardAs: ["iam"])]
        func heard(_ said: [(String, Double?)]) -> Transcript {
            Transcript(language: "en", words: said.enumerated().map { index, word in
                Transcript.Word(start: Double(index), end: Double(index) + 0.8, text: word.0, probability: word.1)
            })
        }
        // Said plainly ("call you if I need help"): heard surely, left as it is.
        let plain = heard([("Call", 0.96), ("you", 0.99), ("if", 0.81), ("I", 0.95), ("need", 1), ("help.", 1)])
        #expect(plain.writing(words).text == "Call you if I need help.")
        // The name heard as "If I": unsure, written as it.
        #expect(heard([("If", 0.30), ("I", 0.29), ("will", 0.98), ("come.", 0.9)]).writing(words).text == "Aoife will come.")
        // One sure word and one unsure: their geometric mean decides (0.37 x 0.87 is under 0.6 x 0.6; 0.45 x 0.85 is not).
        #expect(heard([("If", 0.37), ("I", 0.87), ("believe.", 0.9)]).writing(words).text == "Aoife believe.")
        #expect(heard([("If", 0.45), ("I", 0.85), ("feel.", 0.9)]).writing(words).text == "If I feel.")
        // A form of one word, on its own probability; a word with none said counts as unsure.
        #expect(heard([("Ask", 0.96), ("Iam", 0.27), ("how.", 0.9)]).writing(words).text == "Ask Niamh how.")
        #expect(heard([("Ask", 0.96), ("Iam", 0.61), ("how.", 0.9)]).writing(words).text == "Ask Iam how.")
        #expect(heard([("Ask", nil), ("if", 0.9), ("I", nil)]).writing(words).text == "Ask Aoife")
        // The words returned, written or not, hold no probability: the file stored is as before.
        #expect(plain.writing(words).words.allSatisfy { $0.probability == nil })
        #expect(!String(decoding: plain.writing(words).data, as: UTF8.self).contains("probability"))
    }

    @Test("a word or form that is empty, too long, holds a control character, or a word of two words is refused, naming the fix")
    func refusals() {
        for (word, forms) in [("", []), ("   ", []), (String(repeating: "a", count: 65), []), ("Sio\u{7}bhan", []),
                              ("Mary Ann", []), ("Siobhan", [""]), ("Siobhan", ["shi\u{1B}von"])] as [(String, [String])] {
            #expect(throws: CraveyError.self, "\(word.debugDescription) \(forms)") { try VocabularyWord(word, heardAs: forms) }
        }
        // A form is lowercased, its spaces made one, kept once, and never the word itself.
        #expect((try? VocabularyWord(" Siobhan ", heardAs: ["Shivon", "shivon", "siobhan", "shiv  on"]))?.heardAs == ["shivon", "shiv on"])
    }

    @Test("words are added, given more forms, listed in order, and removed, in the library's database; a form another word has and a 61st word are refused")
    func keptInTheLibrary() throws {
        let library = try RecordingLibrary(at: folder, creating: true)
        #expect(try library.vocabulary.words().isEmpty)
        try library.vocabulary.add("Siobhan", heardAs: ["shivon"])
        try library.vocabulary.add("kaveh")
        // The same word in another case: its spelling now, and the forms of both.
        let siobhan = try library.vocabulary.add("SIOBHAN", heardAs: ["she von"])
        #expect(siobhan.word == "SIOBHAN" && siobhan.heardAs == ["shivon", "she von"])
        // Another process reads them from the file.
        let again = try RecordingLibrary(at: folder)
        #expect(try again.vocabulary.words().map(\.word) == ["kaveh", "SIOBHAN"])

        #expect(throws: CraveyError.self) { try library.vocabulary.add("Niamh", heardAs: ["shivon"]) }
        #expect(try library.vocabulary.remove("Kaveh").word == "kaveh")
        #expect(throws: CraveyError.self) { try library.vocabulary.remove("Kaveh") }
        for index in 1..<LibraryVocabulary.most { try library.vocabulary.add("Name\(index)") }
        #expect(throws: CraveyError.self) { try library.vocabulary.add("OneTooMany") }
        #expect(try library.vocabulary.words().count == LibraryVocabulary.most)
    }

    @Test("a backup carries the words (version 3, words.json beside the manifest) and a restore adds those the library lacks, keeping its own; one without words is version 2")
    func carriedByBackups() throws {
        // Given a library with two words of its own
        let library = try RecordingLibrary(at: folder.appendingPathComponent("first"), creating: true)
        let plain = folder.appendingPathComponent("plain.tar")
        _ = try library.archive.backup(to: plain)
        try library.vocabulary.add("Siobhan", heardAs: ["shivon"])
        try library.vocabulary.add("Kaveh")
        let backup = folder.appendingPathComponent("words.tar")
        _ = try library.archive.backup(to: backup)

        // Then the archive holds them, listed in its manifest; the one made before has none
        let listing = try runBlocking("tar", ["-xOf", backup.path, "cravey-backup/words.json"])
        #expect(listing.status == 0 && listing.output.contains("\"Siobhan\"") && listing.output.contains("\"shivon\""), "\(listing.error)")
        let manifest = try runBlocking("tar", ["-xOf", backup.path, "cravey-backup/manifest.json"]).output
        #expect(manifest.contains("\"words.json\"") && manifest.contains("\"version\" : 3"), "\(manifest)")
        #expect(try runBlocking("tar", ["-xOf", plain.path, "cravey-backup/manifest.json"]).output.contains("\"version\" : 2"))

        // When it is restored into a library that keeps Siobhan with another form, and Niamh
        let other = try RecordingLibrary(at: folder.appendingPathComponent("second"), creating: true)
        try other.vocabulary.add("siobhan", heardAs: ["she von"])
        try other.vocabulary.add("Niamh")
        let checked = try LibraryArchive.checkBackup(at: backup, for: other.url, passphrase: nil)
        _ = try other.archive.restore(checked, checking: nil)

        // Then it has the backup's words too, its own kept as they were, the forms of both
        #expect(try other.vocabulary.words() == [try VocabularyWord("Kaveh"), try VocabularyWord("Niamh"),
                                                 try VocabularyWord("siobhan", heardAs: ["she von", "shivon"])])

        // And a backup whose words.json holds a word no list takes ("Ka eh", two words), its
        // manifest's checksum made to match, is refused whole, naming the file; nothing restored
        let words = Data(listing.output.utf8)
        let changed = Data(listing.output.replacingOccurrences(of: "\"Kaveh\"", with: "\"Ka eh\"").utf8)
        try #require(changed != words && changed.count == words.count)
        let tampered = folder.appendingPathComponent("tampered.tar")
        var bytes = try Data(contentsOf: backup)
        for (old, new) in [(words, changed), (Data(SHA256.of(words).utf8), Data(SHA256.of(changed).utf8))] {
            let range = try #require(bytes.range(of: old))
            bytes.replaceSubrange(range, with: new)
        }
        try bytes.write(to: tampered)
        let third = try RecordingLibrary(at: folder.appendingPathComponent("third"), creating: true)
        #expect {
            _ = try LibraryArchive.checkBackup(at: tampered, for: third.url, passphrase: nil)
        } throws: { error in
            (error as? CraveyError)?.message.contains("words.json holds what is not a list of words") == true
        }
        #expect(try third.vocabulary.words().isEmpty)
    }
}
