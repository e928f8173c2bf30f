@testable import CraveyCore
import CraveyTestSupport
import Foundation
import GRDB
import Testing

/// The word index (``ClipSearch``) on a real library folder and SQLite file: accents folded,
/// prefixes, numbers either way, a query refused as such, and nothing of a deleted clip left in
/// any file; made for a library from before it.
@Suite("Search: the word index over titles, notes and transcripts")
final class ClipSearchTests: Sendable {
    let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-search-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// A clip saved through the store (a few bytes of media: the store does not look inside), with
    /// `words` as its transcript when given, each word a second after the last from 0.5 s.
    func save(_ title: String, notes: String? = nil, words: String? = nil, in library: RecordingLibrary) throws -> Recording {
        let clip = ClipFiles(id: RecordingID(), type: .audio)
        let media = try library.store.create(clip.media(.recording))
        try media.write(Data("media bytes".utf8))
        try media.close()
        return try library.store.write { tx in
            let saved = try tx.save(clip.media(.recording), as: Recording(id: clip.id, type: .audio, title: title, notes: notes,
                                                                          createdAt: Date(), duration: 60, filePath: "", fileSize: 0))
            if let words { try tx.store(Self.transcript(words).data, as: .transcript, of: clip) }
            return saved
        }
    }

    static func transcript(_ text: String) -> Transcript {
        Transcript(language: "en", words: text.split(separator: " ").enumerated().map { index, word in
            Transcript.Word(start: 0.5 + Double(index), end: 1.2 + Double(index), text: String(word))
        })
    }

    func newLibrary() throws -> RecordingLibrary {
        try RecordingLibrary(at: folder.appendingPathComponent("library-\(UUID().uuidString)"))
    }

    /// The titles of what `query` finds, best first.
    func titles(_ library: RecordingLibrary, _ query: String) throws -> [String] {
        try library.search(query).map(\.recording.title)
    }

    @Test("accents and case are folded (é finds É and e), a prefix finds every word beginning so, a number finds its word and back; a word said gives its time and a marked snippet")
    func accentsPrefixesNumbers() throws {
        // Given clips with accented titles and notes, and one with words said
        let library = try newLibrary()
        _ = try save("Élan du matin", notes: "un café crème", in: library)
        _ = try save("Craving less", in: library)
        let spoken = try save("Harbour walk", words: "The lighthouse keepers counted ten boats before midnight.", in: library)

        // Then accents and case do not matter, either way
        #expect(try titles(library, "elan") == ["Élan du matin"])
        #expect(try titles(library, "ÉLAN") == ["Élan du matin"])
        #expect(try titles(library, "CAFÉ") == ["Élan du matin"] && titles(library, "creme") == ["Élan du matin"])
        // A prefix finds every word beginning so; a phrase its words in order
        #expect(try titles(library, "crav*") == ["Craving less"])
        #expect(try titles(library, "crav").isEmpty)
        #expect(try titles(library, "\"keepers counted\"") == ["Harbour walk"] && titles(library, "\"counted keepers\"").isEmpty)
        // A number from 0 to 20 finds itself in words and in digits
        #expect(try titles(library, "10 boats") == ["Harbour walk"])
        #expect(try titles(library, "ten") == ["Harbour walk"])
        #expect(try titles(library, "boats 10 midnight") == ["Harbour walk"] && titles(library, "(boats OR 10) 11").isEmpty)

        // A word said: when it is said (the eighth word, 7.5 s), the snippet marks it
        let match = try #require(try library.search("midnight").first)
        #expect(match.recording.id == spoken.id && match.field == "words" && match.at == 7.5, "\(match)")
        #expect(match.snippet.contains("\(LibraryPage.Match.markStart)midnight\(LibraryPage.Match.markEnd)"), "\(match.snippet)")
        let light = try #require(try library.search("lighth*").first)
        #expect(light.at == 1.5 && light.field == "words")
        // A title match is the title's, with no time
        let title = try #require(try library.search("harbour").first)
        #expect(title.field == "title" && title.at == nil)
        // At most --limit, best first
        #expect(try library.search("elan OR craving OR harbour", limit: 2).count == 2)
    }

    @Test("the same words at other times (a trim that kept them all) move in the index: a search gives the new time, and the index is in step")
    func sameWordsMoved() throws {
        // Given a clip whose words are in the index
        let library = try newLibrary()
        let clip = try save("Quay", words: "Ropes creak under the moon.", in: library)
        #expect(try library.search("moon").first?.at == 4.5)

        // When its words are stored again, every one 3.25 s earlier (what a trim from 3.25 s keeps)
        let moved = Transcript(language: "en", words: Self.transcript("Ropes creak under the moon.").words.map {
            Transcript.Word(start: max(0, $0.start - 3.25), end: max(0, $0.end - 3.25), text: $0.text)
        })
        try library.store.write { tx in _ = try tx.store(moved.data, as: .transcript, of: ClipFiles(clip)) }

        // Then a search says the new time, and the index agrees with the words
        #expect(try library.search("moon").first?.at == 1.25)
        #expect(try library.store.read { db in try ClipSearch(db).isInStep(words: [clip.id: moved]) })
    }

    @Test("a query that holds no word, or is not FTS5 syntax, is refused as invalid input naming it; no match is an empty list")
    func badQueries() throws {
        let library = try newLibrary()
        _ = try save("Breathe", in: library)
        for query in ["", "   ", "\"an open quote", "AND", "NEAR(", "(breathe"] {
            do {
                _ = try library.search(query)
                Issue.record("\(query) was not refused")
            } catch let error as CraveyError {
                #expect(error.kind == .invalidInput, "\(query): \(error)")
                #expect(error.message.contains("Cannot search for"), "\(error.message)")
            }
        }
        #expect(try library.search("nothing like it").isEmpty)
        // What a search holds for its snippets never goes to SQLite's temporary files (in
        // /var/tmp by default: outside the library): 2 is MEMORY.
        #expect(try library.store.read { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") } == 2)
    }

    @Test("the filter's words as prefixes: typed text is never query syntax, tags are left to the filter")
    func filterExpression() throws {
        #expect(ClipSearch.filterExpression("sis") == "\"sis\"*")
        #expect(ClipSearch.filterExpression("my \"sis #calm") == "\"my\"* \"\"\"sis\"*")
        #expect(ClipSearch.filterExpression("#calm  - ") == nil)
        #expect(ClipSearch.filterExpression("my s") == nil)
        // A number outside a phrase matches either way, joined by an explicit AND (FTS5 joins no
        // group by an implicit one); in a phrase, before a * or naming a column it stays as typed
        #expect(try ClipSearch.expression("10 boats") == "(10 OR ten) AND boats")
        #expect(try ClipSearch.expression("boats ten \"ten boats\" 1*") == "boats AND (ten OR 10) AND \"ten boats\" 1*")
        #expect(try ClipSearch.expression("boats OR ten") == "boats OR (ten OR 10)")
    }

    @Test("a filter or search longer than the longest a library takes matches no clip, and a search says so; one of 1,000 characters of many accents each, past SQLite's LIKE limit, matches none, and one at the limit still finds its clip")
    func longFilters() throws {
        // Given clips, one whose words are long
        let library = try newLibrary()
        _ = try save("Morning", notes: "a", in: library)
        let sentence = Array(repeating: "steady", count: 142).joined(separator: " ")   // 993 characters
        _ = try save("Steady", words: sentence, in: library)
        let filter = { (text: String) in
            try library.store.read { db in try RecordingRepository(db).recordings(sortedBy: .title, containing: text, offset: 0, limit: 10).map(\.title) }
        }

        // Then a filter at the limit finds what holds it, one past it nothing (not every clip)
        #expect(try filter(sentence + " stea") == ["Steady"])
        #expect(try filter(String(repeating: "a", count: RecordingLibrary.maxFilterLength + 1)).isEmpty)
        #expect(try filter(String(repeating: "a ", count: 30_000)).isEmpty)
        #expect(try library.store.read { db in try RecordingRepository(db).count(containing: String(repeating: "x", count: 60_000)) } == 0)
        // And 1,000 characters of 60 accents each (a LIKE pattern of 120,000 bytes) is no error
        let heavy = String(repeating: "a" + String(repeating: "\u{301}", count: 60), count: 1_000)
        #expect(heavy.count == 1_000)
        #expect(try filter(heavy).isEmpty)

        // And a search past the limit is refused, naming the limit
        #expect {
            try library.search(String(repeating: "steady ", count: 200))
        } throws: { error in
            (error as? CraveyError)?.kind == .invalidInput && "\(error)".contains("at most 1000")
        }
        #expect(try titles(library, sentence) == ["Steady"])
    }

    @Test("one door request gives the home screen's list: the page around a clip kept, the counts and Quick Play; at a keystroke the rows alone, then their count, among which the next keystroke looks")
    func listPage() throws {
        // Given twelve clips, one of them with words said
        let library = try newLibrary()
        var clips: [Recording] = []
        for index in 0..<12 {
            clips.append(try save("Clip \(index)", words: index == 5 ? "walking by the harbour" : nil, in: library))
        }
        let byTitle = try library.recordings(sortedBy: .title)

        // When the page of four rows holding "Clip 7" is asked for, in title order
        let kept = try library.page(LibraryPage.Request(sort: .title, count: 4, keeping: clips[7].id))

        // Then it holds that clip, says where it stands, and counts the library and Quick Play
        let position = try #require(byTitle.firstIndex { $0.id == clips[7].id })
        #expect(kept.position == position && kept.rows.contains { $0.id == clips[7].id })
        #expect(kept.rows.map(\.id) == byTitle[kept.first..<(kept.first + 4)].map(\.id))
        #expect(kept.counted && kept.total == 12 && kept.matching == 12 && kept.quickPlay.count == RecordingLibrary.quickPlayCount)

        // When a filter of a word said is typed: the rows alone
        let typed = try library.page(LibraryPage.Request(filter: "harb", count: 4, counting: .rows))

        // Then the clip is listed with when its word is said, and nothing is counted
        #expect(typed.rows.map(\.id) == [clips[5].id] && !typed.counted && typed.total == 0 && typed.quickPlay.isEmpty)
        #expect(typed.matches[clips[5].id] == LibraryPage.Match(field: .words, snippet: "walking by the \u{1}harbour\u{2}", at: 3.5))

        // When the matches of "Clip 1" are counted alone
        let counted = try library.page(LibraryPage.Request(filter: "Clip 1", count: 4, counting: .matches))

        // Then they are three, with their rowids and no rows; and the next keystroke looks among those
        #expect(counted.counted && counted.matching == 3 && counted.rows.isEmpty && counted.matchingRowIDs?.count == 3)
        var next = LibraryPage.Request(filter: "Clip 11", count: 4)
        next.among = counted.matchingRowIDs
        #expect(try library.page(next).rows.map(\.title) == ["Clip 11"])
    }

    @Test("a search is the same request: counted, best first, a page at a time, each row with where it matched")
    func searchPage() throws {
        // Given the word in a title, in notes and in words said
        let library = try newLibrary()
        _ = try save("Harbour walk", in: library)
        _ = try save("Evening", notes: "down by the harbour", in: library)
        _ = try save("Quay", words: "the harbour at night", in: library)
        _ = try save("Elsewhere", in: library)

        // When it is searched for, counted
        let all = try library.page(LibraryPage.Request(filter: "harbour", syntax: .query))

        // Then the three are found, each with its match, out of four
        #expect(all.counted && all.matching == 3 && all.total == 4 && all.rows.count == 3)
        #expect(Set(all.rows.compactMap { all.matches[$0.id]?.field }) == [.title, .notes, .words])
        #expect(all.rows.compactMap { all.matches[$0.id]?.at } == [1.5])

        // And its second row alone is the second of them
        let second = try library.page(LibraryPage.Request(filter: "harbour", syntax: .query, first: 1, count: 1, counting: .rows))
        #expect(second.rows.map(\.id) == [all.rows[1].id] && second.first == 1)
    }

    @Test("a library opened without creating, where there is none, says it is not created; made, it is")
    func created() throws {
        let url = folder.appendingPathComponent("none-\(UUID().uuidString)")
        #expect(try !RecordingLibrary(at: url, creating: false).isCreated)
        #expect(try RecordingLibrary(at: url, creating: true).isCreated)
    }

    /// Every file under the library and whether its bytes hold `word` (ASCII letters in either
    /// case).
    func holders(of word: String, in library: RecordingLibrary) -> [String] {
        let needle = Data(word.lowercased().utf8)
        let walker = FileManager.default.enumerator(at: library.url, includingPropertiesForKeys: nil)
        return (walker?.compactMap { $0 as? URL } ?? []).compactMap { url in
            guard let bytes = FileManager.default.contents(atPath: url.path),
                  Data(bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }).range(of: needle) != nil else { return nil }
            return url.lastPathComponent
        }
    }

    @Test("delete, delete-all and a transcript dropped leave none of the clip's words in any file of the library (rows, index segments, WAL)")
    func deleteLeavesNoWord() throws {
        // Given clips with distinctive words in their titles, notes and transcripts, beside others
        let library = try newLibrary()
        for index in 0..<30 { _ = try save("Keep \(index)", notes: "ordinary notes", words: "plain words said here number \(index)", in: library) }
        let gone = try save("Zanzibarquux", notes: "quetzalwing", words: "a xylophonic moment said aloud", in: library)
        let dropped = try save("Morning", words: "the glockenspielish bells rang", in: library)
        for word in ["zanzibarquux", "quetzalwing", "xylophonic", "glockenspielish"] {
            #expect(!holders(of: word, in: library).isEmpty, "\(word) is nowhere before")
            #expect(try library.search(word).count == 1, "\(word) is not found before")
        }

        // When one clip is deleted, and another's transcript is dropped (as a noise clean-up does)
        _ = try library.delete(gone.id)
        try library.store.write { tx in try tx.remove(ClipFiles(dropped).file(.transcript)!) }

        // Then no file of the library holds their words, and the index finds none
        for word in ["zanzibarquux", "quetzalwing", "xylophonic", "glockenspielish"] {
            #expect(holders(of: word, in: library).isEmpty, "\(word) is still in \(holders(of: word, in: library))")
            #expect(try library.search(word).isEmpty)
        }
        #expect(try library.search("plain").count == 30 && library.search("morning").count == 1)

        // And delete-all leaves none of anyone's
        _ = try library.storage.deleteAll()
        for word in ["plain", "ordinary", "keep"] {
            #expect(holders(of: word, in: library).isEmpty, "\(word) is still in \(holders(of: word, in: library))")
        }
    }

    @Test("a library made before the index gets it when opened: its titles, notes and transcripts are found")
    func migration() throws {
        // Given a library database as the schema before the index wrote it, a row and its transcript
        let root = folder.appendingPathComponent("old-\(UUID().uuidString)")
        let id = RecordingID()
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Recordings"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root.path)
        do {
            let queue = try DatabaseQueue(path: root.appendingPathComponent(AppDatabase.fileName).path)
            try AppDatabase.migrator.migrate(queue, upTo: "markers")
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO recording (id, type, title, notes, createdAt, duration, filePath, fileSize)
                    VALUES (?, 'audio', 'Ça va bien', 'a talk about my sister', '2026-01-02 03:04:05.678', 12.5, ?, 11)
                    """, arguments: [id.description, "Recordings/audio_\(id.description).m4a"])
            }
            #expect(try queue.read { db in try db.tableExists("clipSearch") } == false)
        }
        let clip = ClipFiles(id: id, type: .audio)
        try Data("media bytes".utf8).write(to: root.appendingPathComponent(clip.media().path))
        try Self.transcript("we spoke of the lighthouse").data.write(to: root.appendingPathComponent(clip.file(.transcript)!.path))

        // When it is opened
        let library = try RecordingLibrary(at: root)

        // Then the index holds its title, notes and words
        #expect(try titles(library, "ca") == ["Ça va bien"])
        #expect(try titles(library, "sister") == ["Ça va bien"])
        #expect(try library.search("lighthouse").first?.at == 4.5)
    }
}
