@testable import CraveyCore
import Foundation
import GRDB
import Testing

/// A recording's fields are listed once (``Recording/fields``): the row, `--json`, the export,
/// the clip's own copy, a backup's record and an `Encoder` all write exactly them.
@Suite("A recording's fields, listed once")
struct RecordingFieldsTests {
    /// A recording with every field set, none of them at a default.
    static let full = Recording(id: RecordingID(), type: .video, title: "Breathe \"slowly\"", notes: "for the evening\nand after",
                                purpose: .craving, createdAt: Date(timeIntervalSince1970: 1_790_000_000.123),
                                duration: 12.5, filePath: "Recordings/video_x.mp4", thumbnailPath: "Recordings/Thumbnails/video_x.jpg",
                                fileSize: 123_456, playCount: 7, lastPlayedAt: Date(timeIntervalSince1970: 1_790_100_000.5),
                                markers: [ClipMarker(milliseconds: 1500, label: "the \"turn\""), ClipMarker(milliseconds: 12_000, label: nil)])

    static let keys = Set(Recording.CodingKeys.allCases.map(\.rawValue))

    func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("--json, an Encoder and the clip's record write every field and nothing else, and read back as the same recording")
    func everyWriterWritesTheFields() throws {
        // Given a recording with every field set
        let recording = Self.full

        // When it is written as --json writes it, through JSONEncoder and as the clip's record
        let printed = RecordingJSON.encode(recording)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let encoded = try encoder.encode(recording)
        let record = try object(ClipRecord(recording: recording, plays: []).encoded())

        // Then each holds exactly the fields, sorted as listed, and reads back as the recording
        #expect(Set(try object(printed).keys) == Self.keys)
        #expect(Set(try object(encoded).keys) == Self.keys)
        #expect(Set(try #require(record["recording"] as? [String: Any]).keys) == Self.keys)
        #expect(Recording.fields.map(\.key) == Recording.CodingKeys.allCases)
        let order = String(decoding: printed, as: UTF8.self).split(separator: "\n").compactMap { $0.split(separator: "\"").dropFirst().first }
        #expect(order.map(String.init) == Self.keys.sorted())
        for data in [printed, encoded] {
            var read = try Recording.jsonDecoder().decode(Recording.self, from: data)
            read.createdAt = recording.createdAt  // --json keeps whole seconds
            read.lastPlayedAt = recording.lastPlayedAt
            #expect(read == recording)
        }
        #expect(ClipRecord(decoding: ClipRecord(recording: recording, plays: []).encoded())?.recording == recording)
    }

    @Test("the row: its columns are the fields and the loudness, and a recording stored reads back as itself")
    func rowHoldsTheFields() throws {
        // Given a real library's database
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-fields-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try RecordingLibrary(at: folder)
        let queue = try DatabaseQueue(path: folder.appendingPathComponent(AppDatabase.fileName).path)

        // When the recording is stored in its table and read back as cravey reads rows
        let (columns, read) = try queue.write { db -> ([String], Recording?) in
            try Self.full.insert(db)
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(recording)").map { $0["name"] as String }
            return (columns, try Recording.fetchOne(db, key: Self.full.id.description))
        }

        // Then the table's columns are the fields and the two of the loudness, and nothing is lost
        #expect(Set(columns) == Self.keys.union(["loudnessIntegrated", "loudnessTruePeak"]))
        #expect(Recording.databaseSelection.count == Recording.fields.count + 2)
        #expect(read == Self.full)
    }
}
