import CraveyKit
import CraveyTestSupport
import Foundation
import GRDB
import Testing

/// A damaged or lost `library.sqlite` costs no clip and no words: doctor says so, no command
/// turns it into deletions, and cravey's own advice brings every clip back as it was. Run in
/// process (``Outcome``); a recording refused its row: the CLI's DamagedDatabaseRecordTests.
@Suite("A damaged database", .temporaryFiles)
struct DamagedDatabaseTests {
    /// A library of three clips with words and plays, as a person's would be after a while;
    /// returns its folder and its rows with their plays, as they are.
    func livedIn() async throws -> (library: URL, rows: [Recording], plays: [RecordingID: [PlayEvent]]) {
        let library = try await Fixture.library(titles: ["Why I stopped", "Breathe", "Day 30"])
        for (index, recording) in try library.recordings().enumerated() {
            try library.edit(recording.id) { words in
                words.notes = "Note \(index)"
                words.purpose = [.motivational, .craving, .milestone][index]
            }
            for _ in 0...index { try library.countPlay(of: recording, secondsListened: 0.5, completed: true) }
            try library.markers.add(to: recording.id, at: 0.125 * Double(index + 1), label: index == 0 ? nil : "Mark \(index)")
            _ = try library.tag(recording.id, adding: index == 1 ? ["calm", "sister"] : ["calm"])
            if index == 2 { _ = try library.pin(recording.id, slot: 2) }
        }
        let rows = try library.recordings()
        let plays = Dictionary(uniqueKeysWithValues: try rows.map { ($0.id, try library.plays(of: $0.id)) })
        return (library.url, rows, plays)
    }

    /// Overwrites the first page of `table`'s b-tree in `database` (after moving the write-ahead
    /// log into the file), as a failing disk would.
    func damage(_ table: String, in database: URL) throws {
        let (pageSize, rootPage) = try DatabaseQueue(path: database.path).inDatabase { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            return (try Int.fetchOne(db, sql: "PRAGMA page_size"),
                    try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [table]))
        }
        let size = try #require(pageSize), root = try #require(rootPage, "no table \(table)")
        let handle = try FileHandle(forWritingTo: database)
        try handle.seek(toOffset: UInt64((root - 1) * size))
        try handle.write(contentsOf: Data(repeating: 0x5A, count: size))
        try handle.close()
    }

    func assertRestored(_ library: URL, as rows: [Recording], plays: [RecordingID: [PlayEvent]],
                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        let opened = try RecordingLibrary(at: library)
        let now = try opened.recordings()
        #expect(now.count == rows.count, sourceLocation: sourceLocation)
        for row in rows {
            let back = try #require(try opened.recording(row.id), "\(row.title) is gone", sourceLocation: sourceLocation)
            #expect(back.title == row.title && back.notes == row.notes && back.purpose == row.purpose, sourceLocation: sourceLocation)
            #expect(!row.markers.isEmpty && back.markers == row.markers, sourceLocation: sourceLocation)
            #expect(!row.tags.isEmpty && back.tags == row.tags && back.pinnedSlot == row.pinnedSlot, "\(back.tags) \(String(describing: back.pinnedSlot))",
                    sourceLocation: sourceLocation)
            #expect(abs(back.createdAt.timeIntervalSince(row.createdAt)) < 0.002, sourceLocation: sourceLocation)
            #expect(back.playCount == row.playCount && back.lastPlayedAt.map { abs($0.timeIntervalSince(row.lastPlayedAt!)) < 0.002 } == true,
                    sourceLocation: sourceLocation)
            #expect(try opened.plays(of: row.id).map(\.secondsListened) == plays[row.id]?.map(\.secondsListened), sourceLocation: sourceLocation)
        }
    }

    @Test("doctor finds a database whose index pages are damaged (exit 1), names the way out, and repairs nothing")
    func damagedIndex() async throws {
        // Given a library whose title index's pages are overwritten
        let (library, rows, _) = try await livedIn()
        try damage("recording_on_title", in: library.appendingPathComponent("library.sqlite"))

        // When the doctor looks, and is asked to repair
        let doctor = try await Outcome.of(["doctor", "--library", library.path])
        let repair = try await Outcome.of(["doctor", "--repair", "--library", library.path])

        // Then it says the database is damaged and how to bring the clips back, and no clip's file went
        #expect(doctor.status == 1 && doctor.output.contains("database damaged"), "\(doctor.output) \(doctor.error)")
        #expect(doctor.output.contains("mv ") && doctor.output.contains("doctor --repair"), "\(doctor.output)")
        #expect(repair.status == 1 && !repair.output.contains("repaired:"), "\(repair.output)")
        for row in rows { #expect(FileManager.default.fileExists(atPath: library.appendingPathComponent(row.filePath).path)) }
    }

    @Test("a delete-all that fails on a damaged database leaves no journal; following the advice brings every clip back with its words and plays")
    func failedDeleteAllThenAdvice() async throws {
        // Given a library whose play history's pages are damaged
        let (library, rows, plays) = try await livedIn()
        let database = library.appendingPathComponent("library.sqlite")
        try damage("playEvent", in: database)

        // When delete-all fails on it
        let deleteAll = try await Outcome.of(["delete-all", "--yes", "--library", library.path])
        #expect(deleteAll.status != 0, "\(deleteAll.error)")
        #expect(!FileManager.default.fileExists(atPath: library.appendingPathComponent("delete-all.pending").path))

        // And the advice is followed: the database moved aside, then a repair
        try FileManager.default.moveItem(at: database, to: library.appendingPathComponent("library.sqlite.damaged"))
        let repair = try await Outcome.of(["doctor", "--repair", "--library", library.path])

        // Then every clip is back as it was: words, date, plays
        #expect(repair.status == 0, "\(repair.output) \(repair.error)")
        try assertRestored(library, as: rows, plays: plays)
    }

    @Test("a lost database: doctor --repair brings every clip back with its words, date and plays")
    func lostDatabase() async throws {
        // Given a library whose database files are gone
        let (library, rows, plays) = try await livedIn()
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(at: library.appendingPathComponent("library.sqlite" + suffix))
        }

        // When it is repaired
        let repair = try await Outcome.of(["doctor", "--repair", "--library", library.path])

        // Then every clip is back as it was
        #expect(repair.status == 0 && repair.output.contains("from its own copy"), "\(repair.output) \(repair.error)")
        try assertRestored(library, as: rows, plays: plays)
    }

    @Test("an import into a damaged database says nothing was stored and stores nothing")
    func importIntoDamaged() async throws {
        // Given a library whose table of clips is damaged, so no row can be written
        let (library, _, _) = try await livedIn()
        try damage("recording", in: library.appendingPathComponent("library.sqlite"))
        let before = try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Recordings").path).sorted()

        // When a file is imported
        let imported = try await Outcome.of(["import", try await Fixture.audio(seconds: 0.5).path, "--library", library.path])

        // Then it fails without claiming a file that is not there, and Recordings/ is as it was
        #expect(imported.status != 0)
        #expect(!imported.error.contains("saved to"), "\(imported.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Recordings").path).sorted() == before)
    }
}
