import Foundation
import GRDB

/// A person's own words (names, places, terms), kept in the library (its database, so a backup
/// carries them and nothing outside the library holds them): the transcriber is given them as
/// hot words, and writes their heard-as forms as them (``VocabularyWord``). `cravey words` lists,
/// adds and removes them. A capability reached from the door (``RecordingLibrary/vocabulary``).
package struct LibraryVocabulary: Sendable {
    package let library: RecordingLibrary

    /// The most words kept: Whisper is given them in its prompt, of which hot words may fill
    /// about half (224 tokens); more would be cut off unseen.
    package static let most = 60

    /// The words, in alphabetical order (case folded).
    package func words() throws -> [VocabularyWord] {
        try library.store.read { db in try Self.words(db) }
    }

    /// Adds `word` with `heardAs` forms, or adds those forms to the word already kept (whatever
    /// its case: the spelling given now is kept). One transaction. Returns the word as kept.
    ///
    /// Throws ``CraveyError``: `.invalidInput` for a word or form refused (``VocabularyWord``),
    /// a form that is another word's already, or a word past ``most``; nothing changes then.
    @discardableResult
    package func add(_ word: String, heardAs: [String] = []) throws -> VocabularyWord {
        let given = try VocabularyWord(word, heardAs: heardAs)
        return try library.store.write { tx in
            let kept = try Self.words(tx.db)
            let old = kept.first { $0.word.lowercased() == given.word.lowercased() }
            if old == nil && kept.count >= Self.most {
                throw CraveyError(.invalidInput, "The library keeps \(Self.most) words already, as many as the transcriber is given: remove one first (`cravey words remove WORD`).")
            }
            for other in kept where other.word.lowercased() != given.word.lowercased() {
                if let form = given.heardAs.first(where: other.heardAs.contains) {
                    throw CraveyError(.invalidInput, "\"\(form)\" is heard as \"\(other.word)\" already: remove it there first (`cravey words remove \(other.word)`).")
                }
            }
            let word = try VocabularyWord(given.word, heardAs: (old?.heardAs ?? []) + given.heardAs)
            if let old { try tx.db.execute(sql: "DELETE FROM vocabulary WHERE word = ?", arguments: [old.word]) }
            try tx.db.execute(sql: "INSERT INTO vocabulary (word, heardAs) VALUES (?, ?)",
                              arguments: [word.word, word.heardAs.joined(separator: "\n")])
            return word
        }
    }

    /// Removes `word` (whatever its case), with its heard-as forms. One transaction. Returns it.
    ///
    /// Throws ``CraveyError`` `.notFound` when the library keeps no such word.
    @discardableResult
    package func remove(_ word: String) throws -> VocabularyWord {
        try library.store.write { tx in
            guard let kept = try Self.words(tx.db).first(where: { $0.word.lowercased() == word.lowercased() }) else {
                throw CraveyError(.notFound, "The library keeps no word \"\(word)\": `cravey words` lists them.")
            }
            try tx.db.execute(sql: "DELETE FROM vocabulary WHERE word = ?", arguments: [kept.word])
            return kept
        }
    }

    /// The clips whose stored words hold one of `word`'s heard-as forms not yet written as it
    /// (heard before the form was added), newest first: those a new form asks to hear again.
    package func clips(hearing word: VocabularyWord) throws -> [Recording] {
        guard !word.heardAs.isEmpty else { return [] }
        return try library.recordings().filter { recording in
            guard let file = ClipFiles(recording).file(.transcript),
                  let heard = library.store.contents(of: file, atMost: Transcript.largestFile).flatMap(Transcript.init(data:)) else { return false }
            return heard.writing([word]) != heard
        }
    }

    /// Adds to `db` the words of `words` it does not keep, and to a word it keeps the forms it
    /// lacks that no other word has, up to ``most`` words (a backup's words, restored): what the
    /// library keeps stays. Returns how many words were added.
    static func merge(_ words: [VocabularyWord], into db: Database) throws -> Int {
        var kept = try Self.words(db)
        var added = 0
        for word in words {
            let taken = Set(kept.filter { $0.word.lowercased() != word.word.lowercased() }.flatMap(\.heardAs))
            let forms = word.heardAs.filter { !taken.contains($0) }
            if let old = kept.first(where: { $0.word.lowercased() == word.word.lowercased() }) {
                let merged = try VocabularyWord(old.word, heardAs: old.heardAs + forms)
                try db.execute(sql: "UPDATE vocabulary SET heardAs = ? WHERE word = ?", arguments: [merged.heardAs.joined(separator: "\n"), old.word])
                kept = kept.map { $0.word == old.word ? merged : $0 }
            } else if kept.count < most {
                let new = try VocabularyWord(word.word, heardAs: forms)
                try db.execute(sql: "INSERT INTO vocabulary (word, heardAs) VALUES (?, ?)", arguments: [new.word, new.heardAs.joined(separator: "\n")])
                kept.append(new)
                added += 1
            }
        }
        return added
    }

    /// The words `db` holds, in alphabetical order; a row no word is made of is passed over.
    static func words(_ db: Database) throws -> [VocabularyWord] {
        try Row.fetchAll(db, sql: "SELECT word, heardAs FROM vocabulary ORDER BY word COLLATE NOCASE").compactMap { row in
            let heardAs: String = row["heardAs"]
            return try? VocabularyWord(row["word"], heardAs: heardAs.split(separator: "\n").map(String.init))
        }
    }
}
