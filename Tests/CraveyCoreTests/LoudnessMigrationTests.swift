@testable import CraveyCore
import Foundation
import GRDB
import Testing

@Suite("The loudness migration and stored measurements")
struct LoudnessMigrationTests {
    /// A fresh folder, removed by `body`'s end.
    func withFolder(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-loudness-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder)
    }

    @Test("a v1 database opens migrated: its rows keep every field and a play event, with no loudness; one can then be stored")
    func migratesV1() throws {
        try withFolder { folder in
            // Given a library database as the v1 schema wrote it, with one played row
            let id = RecordingID()
            do {
                let queue = try DatabaseQueue(path: folder.appendingPathComponent(AppDatabase.fileName).path)
                try AppDatabase.migrator.migrate(queue, upTo: "v1")
                try queue.write { db in
                    try db.execute(sql: """
                        INSERT INTO recording (id, type, title, notes, purpose, createdAt, duration, filePath,
                                               thumbnailPath, fileSize, playCount, lastPlayedAt)
                        VALUES (?, 'video', 'Old clip', 'kept', 'craving', '2026-01-02 03:04:05.678', 12.5,
                                ?, 'Recordings/Thumbnails/t.jpg', 4321, 7, '2026-02-03 04:05:06.000')
                        """, arguments: [id.description, "Recordings/video_\(id.description).mp4"])
                    try db.execute(sql: "INSERT INTO playEvent (recordingId, playedAt, secondsListened, completed) VALUES (?, '2026-02-03 04:05:06.000', 12.5, 1)",
                                   arguments: [id.description])
                }
                #expect(try queue.read { db in try db.columns(in: "recording").map(\.name) }.contains("loudnessIntegrated") == false)
            }

            // When the library opens it
            let library = try RecordingLibrary(at: folder)

            // Then the row is as it was, not measured, and its play event is there
            let row = try #require(try library.recording(id))
            #expect(row == Recording(id: id, type: .video, title: "Old clip", notes: "kept", purpose: .craving,
                                     createdAt: Date(timeIntervalSince1970: 1_767_323_045.678), duration: 12.5,
                                     filePath: "Recordings/video_\(id.description).mp4",
                                     thumbnailPath: "Recordings/Thumbnails/t.jpg", fileSize: 4321, playCount: 7,
                                     lastPlayedAt: Date(timeIntervalSince1970: 1_770_091_506)))
            #expect(row.loudness == nil)
            #expect(try library.plays(of: id).count == 1)

            // And a measurement stores, changing nothing else
            let updated = try library.store.write { tx in try tx.repository.updateLoudness(of: id, to: LoudnessMeasurement(integrated: -18.25, truePeak: -1.5)) }
            var expected = row
            expected.loudness = LoudnessMeasurement(integrated: -18.25, truePeak: -1.5)
            #expect(updated == expected)
            #expect(try library.recording(id) == expected)

            // And opening it again migrates nothing twice
            #expect(try RecordingLibrary(at: folder).recording(id) == expected)
        }
    }

    @Test("silence (minus infinity) stores and reads back as silence, not as 'not measured'; a missing row is .notFound")
    func silence() throws {
        try withFolder { folder in
            let library = try RecordingLibrary(at: folder)
            let silent = LoudnessMeasurement(integrated: -.infinity, truePeak: -.infinity)
            let recording = Recording(type: .audio, title: "Quiet", duration: 1, filePath: "Recordings/a.m4a", fileSize: 1, loudness: silent)
            try library.store.write { tx in try tx.repository.insert(recording) }
            let row = try #require(try library.recording(recording.id))
            #expect(row.loudness == silent && row.loudness?.isSilent == true)
            #expect(throws: CraveyError.self) { try library.store.write { tx in try tx.repository.updateLoudness(of: RecordingID(), to: silent) } }
        }
    }

    @Test("the JSON of a recording is the same with or without a measurement: loudness is not part of it")
    func jsonUnchanged() throws {
        let plain = Recording(id: RecordingID(), type: .audio, title: "T", createdAt: Date(timeIntervalSince1970: 0), duration: 1,
                              filePath: "Recordings/a.m4a", fileSize: 1)
        var measured = plain
        measured.loudness = LoudnessMeasurement(integrated: -20, truePeak: -3)
        #expect(RecordingJSON.encode(measured) == RecordingJSON.encode(plain))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(measured) == (try encoder.encode(plain)))
        let keys = try #require(try JSONSerialization.jsonObject(with: RecordingJSON.encode(measured)) as? [String: Any]).keys
        #expect(Set(keys) == ["createdAt", "duration", "fileSize", "filePath", "id", "lastPlayedAt", "notes", "playCount",
                              "markers", "pinnedSlot", "purpose", "tags", "thumbnailPath", "title", "type"])
        // Decoding the JSON gives the row without a measurement.
        #expect(try Recording.jsonDecoder().decode(Recording.self, from: RecordingJSON.encode(measured)).loudness == nil)
    }
}
