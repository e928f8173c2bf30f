@testable import CraveyCore
@testable import CraveyKit
import CraveyTestSupport
import Foundation
import GRDB
import Testing

/// Markers on real libraries (SQLite files, media cut and cleaned through the door, a backup
/// restored into another library, a clip's own copy).
@Suite("A clip's markers", .temporaryFiles)
struct ClipMarkersTests {
    /// A library holding one 4 s clip: a tone from 1 s to 3 s over pink noise (what trim and
    /// clean both work on), imported through the door.
    func libraryWithClip() async throws -> (RecordingLibrary, Recording) {
        let source = try await Fixture.make("m4a", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)*between(t\\,1\\,3):s=48000:d=4",
                                              "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.02:sample_rate=48000:seed=7:duration=4",
                                              "-filter_complex", "[0][1]amix=inputs=2:normalize=0:duration=first", "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
        let library = try RecordingLibrary(at: temporaryLibrary())
        let recording = try await library.importFile(at: source, metadata: try RecordingMetadata(title: "Marked"))
        return (library, recording)
    }

    func marker(_ milliseconds: Int64, _ label: String? = nil) -> ClipMarker {
        ClipMarker(milliseconds: milliseconds, label: label)
    }

    @Test("a trim's markers: those inside the part kept move back by its start to the millisecond, those at its edges stay, those cut go")
    func keptExactly() {
        let markers = [marker(0), marker(999), marker(1000, "start"), marker(1001), marker(2345, "x"), marker(3000, "end"),
                       marker(3001), marker(3999)]
        #expect(ClipMarker.kept(markers, from: 1, to: 3) == [marker(0, "start"), marker(1), marker(1345, "x"), marker(2000, "end")])
        // A start between milliseconds is rounded as a marker's time is: 1.2344 s is 1234 ms
        #expect(ClipMarker.kept([marker(1234), marker(1235), marker(2000)], from: 1.2344, to: 1.9996) == [marker(0), marker(1), marker(766)])
        #expect(ClipMarker.kept([marker(500)], from: 1, to: 2).isEmpty)
        #expect(ClipMarker.kept([], from: 0, to: 1).isEmpty)
    }

    @Test("the column keeps each marker as a line, its time to the millisecond and its label, and reads back the same; a line that is none is left out")
    func column() {
        let markers = [marker(0), marker(45, "a b"), marker(61_007, "Chorus: “again”"), marker(3_600_000)]
        let stored = ClipMarker.stored(markers)
        #expect(stored == "0.000\n0.045 a b\n61.007 Chorus: “again”\n3600.000")
        #expect(ClipMarker.parse(stored) == markers)
        #expect(ClipMarker.parse("") == [] && ClipMarker.parse(nil) == [])
        #expect(ClipMarker.parse("1.5 no\nabc\n2.000 yes") == [marker(2000, "yes")])
    }

    @Test("trim moves the markers with the sound exactly, in the row and the clip's copy; the ones cut go, the ones at the edges stay")
    func trimShiftsMarkers() async throws {
        // Given a 4 s clip marked before, at, inside, at the end of and after the part to keep
        let (library, recording) = try await libraryWithClip()
        for (seconds, label) in [(0.5, "cut before"), (1.0, "start"), (1.234, "inside"), (2.999, nil), (3.0, "end"), (3.5, "cut after")] as [(Double, String?)] {
            try library.markers.add(to: recording.id, at: seconds, label: label)
        }

        // When it is trimmed to 1-3 s
        let trimmed = try await library.trim(try #require(try library.recording(recording.id)), from: 1, to: 3)

        // Then the markers kept are moved back by 1 s to the millisecond, in the row and in its copy
        let expected = [marker(0, "start"), marker(234, "inside"), marker(1999), marker(2000, "end")]
        #expect(trimmed.markers == expected)
        #expect(try library.recording(recording.id)?.markers == expected)
        #expect(library.store.record(of: ClipFiles(trimmed))?.recording.markers == expected)
        #expect(try await library.examine().isHealthy)
    }

    @Test("a clean-up keeps the markers' times")
    func cleanKeepsMarkers() async throws {
        let (library, recording) = try await libraryWithClip()
        try library.markers.add(to: recording.id, at: 2.5, label: "kept")
        let cleanup = try await library.shaping.cleanNoise(of: try #require(try library.recording(recording.id)))
        let cleaned = try await library.shaping.keep(cleanup)
        #expect(cleaned.markers == [marker(2500, "kept")])
        #expect(library.store.record(of: ClipFiles(cleaned))?.recording.markers == [marker(2500, "kept")])
    }

    @Test("a marker is added in time order, one a millisecond (a second at the same time gives it its label, or keeps the one it has), and removed by its number")
    func addAndRemove() async throws {
        let library = try await Fixture.library(titles: ["Short"])
        let recording = try #require(try library.recordings().first)
        try library.markers.add(to: recording.id, at: 0.3)
        try library.markers.add(to: recording.id, at: 0.1, label: "  first  ")
        let relabelled = try library.markers.add(to: recording.id, at: 0.3004, label: "second")
        #expect(relabelled.markers == [marker(100, "first"), marker(300, "second")])
        // A marker again at the same millisecond without a label keeps the label it has
        #expect(try library.markers.add(to: recording.id, at: 0.3).markers == [marker(100, "first"), marker(300, "second")])
        let removed = try library.markers.remove(1, of: recording.id)
        #expect(removed.markers == [marker(300, "second")])
        let stored = try library.store.read { db in try String.fetchOne(db, sql: "SELECT markers FROM recording") }
        #expect(stored == "0.300 second")
    }

    @Test("a label is held to what a title is: a control character, a tab, a line break or 41 characters are refused; a time past the end, a number no marker has too; nothing changes")
    func refusals() async throws {
        let library = try await Fixture.library(titles: ["Kept"])
        let recording = try #require(try library.recordings().first)
        try library.markers.add(to: recording.id, at: 0.2, label: "fine")
        let before = try library.recording(recording.id)
        for bad in ["bell\u{07}", "tab\there", "two\nlines", "\u{1B}[31mred", String(repeating: "x", count: 41), "c1\u{9B}"] {
            let refusal = #expect(throws: CraveyError.self, "\(bad.debugDescription)") {
                try library.markers.add(to: recording.id, at: 0.1, label: bad)
            }
            #expect(refusal?.kind == .invalidInput)
        }
        for seconds in [0.6, -1, .infinity, .nan] {
            #expect(throws: CraveyError.self, "\(seconds)") { try library.markers.add(to: recording.id, at: seconds) }
        }
        for number in [0, 2, -1] {
            #expect(throws: CraveyError.self, "\(number)") { try library.markers.remove(number, of: recording.id) }
        }
        #expect(try library.recording(recording.id) == before)
        // 40 characters, accents and spaces are a label
        #expect(try library.markers.add(to: recording.id, at: 0.4, label: String(repeating: "é ", count: 20)).markers.count == 2)
    }

    @Test("markers go into the clip's copy, its backup and its JSON, come back with a restore and from the copy alone; a record written before them reads as none")
    func markersTravel() async throws {
        let library = try await Fixture.library(titles: ["Marked"])
        let recording = try #require(try library.recordings().first)
        try library.markers.add(to: recording.id, at: 0.125, label: "here")
        try library.markers.add(to: recording.id, at: 0.25)
        let expected = [marker(125, "here"), marker(250)]
        let stored = try #require(try library.recording(recording.id))
        let json = try #require(try JSONSerialization.jsonObject(with: RecordingJSON.encode(stored)) as? [String: Any])
        let listed = try #require(json["markers"] as? [[String: Any]])
        #expect(listed.count == 2 && listed[0]["at"] as? Double == 0.125 && listed[0]["label"] as? String == "here" && listed[1]["label"] is NSNull)

        // A backup restored into another library
        let backup = temporaryFolder().appendingPathComponent("markers.tar")
        let restoredURL = temporaryFolder().appendingPathComponent("restored")
        try await offPool {
            _ = try library.archive.backup(to: backup)
            _ = try RecordingLibrary(at: restoredURL).archive.restore(from: backup)
        }
        let restored = try RecordingLibrary(at: restoredURL)
        #expect(try restored.recording(recording.id)?.markers == expected)
        #expect(try await restored.examine().isHealthy)

        // The database lost: the repair registers the clip from its copy, markers and all
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(at: library.url.appendingPathComponent("library.sqlite" + suffix))
        }
        let rebuilt = try RecordingLibrary(at: library.url)
        _ = try await rebuilt.repair()
        #expect(try rebuilt.recording(recording.id)?.markers == expected)

        // A copy without the field (written before markers) reads as a clip without markers
        let copy = try Data(contentsOf: rebuilt.fileURL(#require(ClipFiles(recording).file(.copy))))
        let text = String(decoding: copy, as: UTF8.self)
        let old = try #require(text.firstMatch(of: #/ *"markers" : \[[^\n]*\],\n/#)).output
        #expect(ClipRecord(decoding: Data(text.replacingOccurrences(of: String(old), with: "").utf8))?.recording.markers == [])
    }

    @Test("a replacement's journal says the new media's inode and the markers it brings; one written before markers says the name alone")
    func journal() {
        let journal = ReplacementJournal(media: "audio_x.m4a.importing", inode: 1234, markers: [marker(0, "a b"), marker(1500)])
        #expect(ReplacementJournal(journal.data) == journal)
        #expect(ReplacementJournal(Data("audio_x.m4a.importing".utf8)) == ReplacementJournal(media: "audio_x.m4a.importing", inode: nil, markers: nil))
        #expect(ReplacementJournal(ReplacementJournal(media: "n", inode: 7, markers: []).data)?.markers == [])
        #expect(ReplacementJournal(Data()) == nil)
    }
}
