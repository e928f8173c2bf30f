@testable import CraveyCore
@testable import CraveyKit
import CraveyTestSupport
import Foundation
import GRDB
import Testing

/// Pins: a clip kept in a Quick Play slot whatever its play count, on real libraries (SQLite
/// files, media, a backup restored into another library).
@Suite("Quick Play pins", .temporaryFiles)
struct QuickPlayPinsTests {
    /// A library of clips "A" to "E", played 5, 3, 1, 0 and 0 times.
    func playedLibrary() async throws -> (RecordingLibrary, [String: RecordingID]) {
        let library = try await Fixture.library(titles: ["A", "B", "C", "D", "E"])
        var ids: [String: RecordingID] = [:]
        for recording in try library.recordings() { ids[recording.title] = recording.id }
        for (title, plays) in [("A", 5), ("B", 3), ("C", 1)] {
            let recording = try #require(try library.recording(ids[title]!))
            for _ in 0..<plays { try library.countPlay(of: recording) }
        }
        return (library, ids)
    }

    func titles(_ recordings: [Recording]) -> [String] { recordings.map(\.title) }

    @Test("Quick Play is the pinned clips in their slots, the other slots filled with the most played; the first free slot by default")
    func pinnedInTheirSlots() async throws {
        // Given clips played 5, 3, 1, 0 and 0 times
        let (library, ids) = try await playedLibrary()
        #expect(titles(try library.quickPlay()) == ["A", "B", "C"])

        // When E, never played, is pinned to slot 2, and then D with no slot named
        let pinned = try library.pin(ids["E"]!, slot: 2)
        #expect(pinned.pinned.pinnedSlot == 2 && pinned.displaced == nil)
        #expect(titles(try library.quickPlay()) == ["A", "E", "B"])
        try library.pin(ids["D"]!)

        // Then D takes the first free slot, and the most played fills what is left
        #expect(titles(try library.quickPlay()) == ["D", "E", "A"])
        #expect(try library.recording(ids["D"]!)?.pinnedSlot == 1)
        // Pinning a clip again without a slot keeps its own
        #expect(try library.pin(ids["E"]!).pinned.pinnedSlot == 2)
    }

    @Test("a taken slot passes to the clip pinned to it; every slot pinned and none named is refused with nothing changed; slots out of 1 to 3 are refused")
    func takenSlotsAndRefusals() async throws {
        // Given D, E and C pinned to slots 1, 2 and 3
        let (library, ids) = try await playedLibrary()
        for (title, slot) in [("D", 1), ("E", 2), ("C", 3)] { try library.pin(ids[title]!, slot: slot) }
        let before = try library.recordings()

        // When B is pinned with no slot named, and to slots 0 and 4
        for slot in [nil, 0, 4] as [Int?] {
            #expect(throws: CraveyError.self) { try library.pin(ids["B"]!, slot: slot) }
        }
        let b = ids["B"]!
        let refusal = #expect(throws: CraveyError.self) { try library.pin(b) }
        // Then it is invalid input that names the pinned clips and the ways out
        let message = refusal?.message ?? ""
        #expect(refusal?.kind == .invalidInput)
        #expect(message.contains("1: \"D\"") && message.contains("cravey unpin"), "\(message)")
        #expect(try library.recordings() == before)

        // When B is pinned to slot 2, E's
        let (pinned, displaced) = try library.pin(ids["B"]!, slot: 2)

        // Then E is unpinned and said to be, and Quick Play follows
        #expect(pinned.pinnedSlot == 2 && displaced?.title == "E" && displaced?.pinnedSlot == nil)
        #expect(try library.recording(ids["E"]!)?.pinnedSlot == nil)
        #expect(titles(try library.quickPlay()) == ["D", "B", "C"])

        // When D is moved to slot 3, C's, then unpinned
        try library.pin(ids["D"]!, slot: 3)
        #expect(titles(try library.quickPlay()) == ["A", "B", "D"])
        #expect(try library.unpin(ids["D"]!).pinnedSlot == nil)
        #expect(titles(try library.quickPlay()) == ["A", "B", "C"])
    }

    @Test("with fewer clips than slots, a pinned clip moves up to the first empty slot before it")
    func fewerClipsThanSlots() async throws {
        let library = try await Fixture.library(titles: ["Only"])
        let only = try #require(try library.recordings().first)
        try library.pin(only.id, slot: 3)
        #expect(titles(try library.quickPlay()) == ["Only"])
    }

    @Test("a pin is kept in the clip's copy, its JSON and a backup: restored as it was, or left out where another clip holds its slot")
    func pinsTravelWithTheClip() async throws {
        // Given a library whose clip A is pinned to slot 1, backed up
        let (library, ids) = try await playedLibrary()
        let a = ids["A"]!
        try library.pin(a, slot: 1)
        let row = try #require(try library.recording(a))
        let copy = try Data(contentsOf: library.fileURL(#require(ClipFiles(row).file(.copy))))
        #expect(ClipRecord(decoding: copy)?.recording.pinnedSlot == 1)
        #expect(String(decoding: RecordingJSON.encode(row), as: UTF8.self).contains("\"pinnedSlot\" : 1"))
        let folder = temporaryFolder()
        let backup = folder.appendingPathComponent("pins.tar")
        _ = try library.archive.backup(to: backup)

        // When it is restored into an empty library, and into one whose slot 1 holds another clip
        let empty = try RecordingLibrary(at: folder.appendingPathComponent("empty"))
        _ = try empty.archive.restore(from: backup)
        let other = try await Fixture.library(titles: ["Mine"])
        let mine = try #require(try other.recordings().first)
        try other.pin(mine.id, slot: 1)
        _ = try other.archive.restore(from: backup)

        // Then the first has A in slot 1; the second keeps its own clip there, and A unpinned,
        // its copy saying so too
        #expect(try empty.recording(a)?.pinnedSlot == 1)
        #expect(titles(try empty.quickPlay()).first == "A")
        #expect(try other.recording(mine.id)?.pinnedSlot == 1 && other.recording(a)?.pinnedSlot == nil)
        let restored = try #require(try other.recording(a))
        let restoredCopy = try Data(contentsOf: other.fileURL(#require(ClipFiles(restored).file(.copy))))
        #expect(ClipRecord(decoding: restoredCopy)?.recording.pinnedSlot == nil)
        #expect(try await other.examine().isHealthy)
    }

    @Test("a library made before pins opens with none, and a slot no clip can have is a value doctor and a restore refuse")
    func migrationAndBounds() async throws {
        // Given a database as the schema before pins wrote it, with one row
        let folder = temporaryFolder()
        let id = RecordingID()
        do {
            let queue = try DatabaseQueue(path: folder.appendingPathComponent(AppDatabase.fileName).path)
            try AppDatabase.migrator.migrate(queue, upTo: "libraryInfo")
            try await queue.write { db in
                try db.execute(sql: """
                    INSERT INTO recording (id, type, title, createdAt, duration, filePath, fileSize, playCount)
                    VALUES (?, 'audio', 'Old clip', '2026-01-02 03:04:05.678', 2, ?, 10, 0)
                    """, arguments: [id.description, "Recordings/audio_\(id.description).m4a"])
            }
        }

        // When the library opens it
        let library = try RecordingLibrary(at: folder)

        // Then the row is there, unpinned, and can be pinned
        #expect(try library.recording(id)?.pinnedSlot == nil)
        #expect(try library.pin(id, slot: 2).pinned.pinnedSlot == 2)
        // A slot out of 1 to 3 is a value no clip has
        var impossible = try #require(try library.recording(id))
        impossible.pinnedSlot = 4
        #expect(impossible.problems().contains { $0.hasPrefix("pinnedSlot: 4 is not a Quick Play slot") })
    }
}
