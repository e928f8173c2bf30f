@testable import CraveyCore
@testable import CraveyKit
import CraveyTestSupport
import Foundation
import GRDB
import Testing

/// Tags on real libraries (SQLite files, media, a backup restored into another library).
@Suite("A clip's tags", .temporaryFiles)
struct ClipTagsTests {
    func titles(_ recordings: [Recording]) -> [String] { recordings.map(\.title) }

    @Test("tags are added and removed in lower case, sorted and each once; list, Quick Play and export narrow to a tag")
    func tagAndFind() async throws {
        // Given three clips
        let library = try await Fixture.library(titles: ["Sister", "Walk", "Work"])
        let byTitle = Dictionary(uniqueKeysWithValues: try library.recordings().map { ($0.title, $0.id) })

        // When two are tagged, one of them twice, with a tag given in capitals and one removed
        let sister = try library.tag(byTitle["Sister"]!, adding: ["Calm", "family", "calm"])
        try library.tag(byTitle["Walk"]!, adding: ["calm", "outside"])
        let removed = try library.tag(byTitle["Sister"]!, removing: ["family"])

        // Then each clip keeps its tags as said, and the library finds them by tag
        #expect(sister.tags == ["calm", "family"] && removed.tags == ["calm"])
        #expect(try library.recording(byTitle["Walk"]!)?.tags == ["calm", "outside"])
        #expect(try library.tags() == ["calm", "outside"])
        #expect(Set(titles(try library.recordings(tagged: "calm"))) == ["Sister", "Walk"])
        #expect(titles(try library.recordings(tagged: "#OUTSIDE")) == ["Walk"])
        #expect(try library.recordings(tagged: "nobody").isEmpty)
        #expect(Set(titles(try library.quickPlay(tagged: "calm"))) == ["Sister", "Walk"])
        let csv = String(decoding: try library.archive.export(.csv, tagged: "outside"), as: UTF8.self)
        #expect(csv.split(separator: "\r\n").count == 2 && csv.contains("calm outside"))
        let stored = try library.store.read { db in try String.fetchOne(db, sql: "SELECT tags FROM recording WHERE title = 'Walk'") }
        #expect(stored == " calm outside ")
    }

    @Test("a tag with an accent is one tag however it is typed (composed, or a letter and a combining accent): kept composed, found either way by list, the filter and Quick Play; one kept decomposed before is found too")
    func accentsEitherWay() async throws {
        // Given clips tagged with an accent typed both ways
        let library = try await Fixture.library(titles: ["Crème", "Jalapeño", "Plain"])
        let byTitle = Dictionary(uniqueKeysWithValues: try library.recordings().map { ($0.title, $0.id) })
        let (composed, decomposed) = ("cr\u{E8}me", "cre\u{300}me")
        try library.tag(byTitle["Crème"]!, adding: [decomposed])
        try library.tag(byTitle["Jalapeño"]!, adding: ["JALAPEN\u{303}O"])

        // Then each is kept composed, in lower case
        let stored = try library.store.read { db in try String.fetchAll(db, sql: "SELECT tags FROM recording ORDER BY title") }
        #expect(stored.map { Array($0.utf8) } == [Array(" \(composed) ".utf8), Array(" jalape\u{F1}o ".utf8), []])

        // And found typed either way, by list, the home screen's filter and Quick Play
        for typed in [composed, decomposed, "CRE\u{300}ME"] {
            #expect(titles(try library.recordings(tagged: typed)) == ["Crème"], "\(Array(typed.unicodeScalars))")
            #expect(try library.store.read { db in try RecordingRepository(db).count(containing: "#" + typed) } == 1)
            #expect(titles(try library.quickPlay(tagged: typed)) == ["Crème"])
        }
        #expect(titles(try library.recordings(tagged: "jalapen\u{303}o")) == ["Jalapeño"])

        // And a tag an older cravey kept decomposed is found by the composed one, and listed once
        try library.store.write { tx in
            try tx.db.execute(sql: "UPDATE recording SET tags = ? WHERE title = 'Plain'", arguments: [" \(decomposed) "])
        }
        #expect(Set(titles(try library.recordings(tagged: composed))) == ["Crème", "Plain"])
        #expect(try library.tags().map { Array($0.utf8) } == [Array(composed.utf8), Array("jalape\u{F1}o".utf8)])
    }

    @Test("a tag is held to what a title is: empty, too long, a space, #, a comma, a control or formatting character, a leading + or - are refused, nothing changed")
    func refusals() async throws {
        let library = try await Fixture.library(titles: ["Kept"])
        let recording = try #require(try library.recordings().first)
        try library.tag(recording.id, adding: ["fine"])
        for bad in ["", String(repeating: "x", count: 31), "two words", "a#b", "a,b", "bell\u{07}", "rtl\u{202E}x", "+plus", "-minus", "tab\t"] {
            let refusal = #expect(throws: CraveyError.self, "\(bad.debugDescription)") {
                try library.tag(recording.id, adding: ["ok", bad])
            }
            #expect(refusal?.kind == .invalidInput)
        }
        #expect(throws: CraveyError.self) { try library.tag(recording.id, adding: (0..<20).map { "t\($0)" }) }
        #expect(try library.recording(recording.id)?.tags == ["fine"])
        // 30 characters, accents and a hyphen are a tag
        #expect(try library.tag(recording.id, adding: [String(repeating: "é", count: 30), "self-care"]).tags.count == 3)
    }

    @Test("#word in the home screen's filter narrows to a tag, beside the words it still finds in titles")
    func filterByTag() async throws {
        let library = try await Fixture.library(titles: ["Calm walk", "Calm talk", "Storm"])
        let byTitle = Dictionary(uniqueKeysWithValues: try library.recordings().map { ($0.title, $0.id) })
        try library.tag(byTitle["Calm walk"]!, adding: ["outside"])
        try library.tag(byTitle["Storm"]!, adding: ["outside"])
        let found = { (text: String) in
            try library.store.read { db in
                try RecordingRepository(db).recordings(sortedBy: .title, containing: text, offset: 0, limit: 10).map(\.title)
            }
        }
        #expect(try found("#outside") == ["Calm walk", "Storm"])
        #expect(try found("calm #outside") == ["Calm walk"])
        #expect(try found("#OUTSIDE walk") == ["Calm walk"])
        #expect(try found("#nothing").isEmpty)
        #expect(try found("#") == [])  // a lone # is text no title holds
        #expect(try library.store.read { db in try RecordingRepository(db).count(containing: "#outside") } == 2)
    }

    @Test("tags go into the clip's copy and its backup, and come back with a restore; a record written before tags reads as none")
    func tagsTravel() async throws {
        let library = try await Fixture.library(titles: ["Tagged"])
        let recording = try #require(try library.recordings().first)
        try library.tag(recording.id, adding: ["calm", "night"])
        let copy = try Data(contentsOf: library.fileURL(#require(ClipFiles(recording).file(.copy))))
        #expect(ClipRecord(decoding: copy)?.recording.tags == ["calm", "night"])
        let backup = temporaryFolder().appendingPathComponent("tags.tar")
        _ = try library.archive.backup(to: backup)
        let restored = try RecordingLibrary(at: temporaryFolder().appendingPathComponent("restored"))
        _ = try restored.archive.restore(from: backup)
        #expect(try restored.recording(recording.id)?.tags == ["calm", "night"])
        #expect(try restored.recordings(tagged: "night").count == 1)
        #expect(try await restored.examine().isHealthy)
        // A copy without the field (written before tags) reads as a clip without tags
        let old = String(decoding: copy, as: UTF8.self).replacingOccurrences(of: "\"tags\" : [\"calm\", \"night\"],\n", with: "")
        #expect(old != String(decoding: copy, as: UTF8.self))
        #expect(ClipRecord(decoding: Data(old.utf8))?.recording.tags == [])
    }
}
