import CraveyCore
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands

/// `cravey words`, in process (``Outcome``): a person's own words listed, added with their
/// heard-as forms, and removed, in a real library; refusals with their exit codes, nothing
/// changed; the words hidden from `ps`.
@Suite("Words: a person's own words, in process", .temporaryFiles)
struct WordsCommandTests {
    @Test("words are added with heard-as forms, listed (text and --json) and removed; a library that is not there yet is made by an add")
    func addListRemove() async throws {
        let library = temporaryFolder().appendingPathComponent("library-\(UUID().uuidString.prefix(8))").path
        let empty = try await Outcome.of(["words", "--library", library])
        #expect(empty.status == 0 && empty.output.isEmpty && empty.error.contains("cravey words add"), "\(empty)")

        let added = try await Outcome.of(["words", "add", "Siobhan", "--heard-as", "shivon", "--heard-as", "She Von", "--library", library])
        #expect(added.status == 0 && added.error.contains("Kept \"Siobhan\", heard as \"shivon\", \"she von\""), "\(added)")
        #expect(try await Outcome.of(["words", "add", "Kaveh", "--library", library]).status == 0)
        let listed = try await Outcome.of(["words", "--library", library])
        #expect(listed.status == 0 && listed.output == "Kaveh\nSiobhan\tshivon, she von\n", "\(listed.output.debugDescription)")
        let json = try await Outcome.of(["words", "list", "--json", "--library", library])
        let decoded = try JSONDecoder().decode([VocabularyWord].self, from: Data(json.output.utf8))
        #expect(decoded == [try VocabularyWord("Kaveh"), try VocabularyWord("Siobhan", heardAs: ["shivon", "she von"])])

        let removed = try await Outcome.of(["words", "remove", "kaveh", "--library", library])
        #expect(removed.status == 0 && removed.error.contains("Removed \"Kaveh\""), "\(removed)")
        #expect(try await Outcome.of(["words", "--library", library]).output == "Siobhan\tshivon, she von\n")
    }

    @Test("a form added names the clips whose words hold it, with the command that hears each again; a clip whose words do not is not named")
    func offersToHearAgain() async throws {
        // Given two clips, one with "shivon" in its words
        let library = try await Fixture.library(clips: 2)
        let clips = try library.recordings()
        for (clip, text) in zip(clips, ["Call shivon tonight.", "Call my sister tonight."]) {
            let words = Transcript(language: "en", words: text.split(separator: " ").enumerated().map { index, word in
                Transcript.Word(start: Double(index) * 0.1, end: Double(index) * 0.1 + 0.05, text: String(word))
            })
            try library.store.write { tx in try tx.store(words.data, as: .transcript, of: ClipFiles(clip)) }
        }
        let added = try await Outcome.of(["words", "add", "Siobhan", "--heard-as", "shivon", "--library", library.url.path])
        #expect(added.status == 0, "\(added)")
        #expect(added.error.contains("1 clip has words heard as it before: \"\(clips[0].title)\" (`cravey transcribe \(clips[0].id.description.prefix(8))`)."), "\(added.error)")
        #expect(!added.error.contains(String(clips[1].id.description.prefix(8))))
        // A word without forms names none.
        #expect(!(try await Outcome.of(["words", "add", "Kaveh", "--library", library.url.path])).error.contains("heard as it before"))
    }

    @Test("--hear-again hands each clip to `cravey transcribe`; where that fails (no transcriber: 69) the word is kept, the clip named, and the first failure's code is the command's")
    func hearAgainWithoutTranscriber() async throws {
        // Given a clip with "shivon" in its words, and no transcriber (as every in-process test)
        let library = try await Fixture.library(clips: 1)
        let clip = try #require(try library.recordings().first)
        let words = Transcript(language: "en", words: [Transcript.Word(start: 0, end: 0.2, text: "shivon")])
        try library.store.write { tx in try tx.store(words.data, as: .transcript, of: ClipFiles(clip)) }

        // When the word is added with --hear-again
        let added = try await Outcome.of(["words", "add", "Siobhan", "--heard-as", "shivon", "--hear-again", "--library", library.url.path])

        // Then cravey-media's transcribe was run for the clip and refused (69), which is said;
        // the word is kept, the clip's words as they were
        #expect(added.status == 69, "\(added)")
        #expect(added.error.contains("not installed") && added.error.contains("\(clip.id.description.prefix(8)) was not heard again (exit 69); the word is kept."), "\(added.error)")
        #expect(try library.vocabulary.words().map(\.word) == ["Siobhan"])
        #expect(library.transcripts.transcript(of: clip)?.words.map(\.text) == ["shivon"])
    }

    @Test("a word of two words, an empty form, a form another word has: exit 64; removing a word not kept: exit 66; nothing changes")
    func refusals() async throws {
        let library = temporaryFolder().appendingPathComponent("library-\(UUID().uuidString.prefix(8))").path
        _ = try await Outcome.of(["words", "add", "Niamh", "--heard-as", "iam", "--library", library])
        for arguments in [["add", "Mary Ann"], ["add", "Aoife", "--heard-as", ""], ["add", "Aoife", "--heard-as", "IAM"]] {
            let refused = try await Outcome.of(["words"] + arguments + ["--library", library])
            #expect(refused.status == 64, "\(arguments): \(refused)")
        }
        let missing = try await Outcome.of(["words", "remove", "Aoife", "--library", library])
        #expect(missing.status == 66 && missing.error.contains("no word \"Aoife\""), "\(missing)")
        #expect(try await Outcome.of(["words", "--library", library]).output == "Niamh\tiam\n")
    }

    @Test("the words of `words add` and `words remove` are hidden from ps, with their --heard-as forms; the library's path and other commands' arguments are not")
    func hiddenFromProcessList() {
        #expect(HiddenArguments.redacted(["cravey", "words", "add", "Siobhan", "--heard-as", "shivon", "--library", "/l"])
                == ["cravey", "words", "add", "(hidden)", "--heard-as", "(hidden)", "--library", "/l"])
        #expect(HiddenArguments.redacted(["cravey", "--library", "/l", "words", "remove", "Siobhan"])
                == ["cravey", "--library", "/l", "words", "remove", "(hidden)"])
        #expect(HiddenArguments.redacted(["cravey", "words", "--json"]) == ["cravey", "words", "--json"])
        #expect(HiddenArguments.redacted(["cravey", "play", "add"]) == ["cravey", "play", "add"])
    }
}
