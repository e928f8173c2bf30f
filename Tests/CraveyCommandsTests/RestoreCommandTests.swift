import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey restore` into a library that has clips, of a format-1 backup and of one that left a
/// clip out, and its refusals, run in process (``Outcome``) as `cravey-media` runs it. (A backup
/// as tar and sha256sum read it, and backups damaged or added to by tar: BackupArchiveTests.swift.)
@Suite("cravey restore, in process", .temporaryFiles)
struct RestoreCommandTests {
    func backup(_ library: RecordingLibrary) async throws -> URL {
        let archive = temporaryFolder().appendingPathComponent("clips-\(UUID().uuidString.prefix(8)).tar")
        let made = try await Outcome.of(["backup", "--output", archive.path, "--library", library.url.path])
        try #require(made.status == 0, "\(made)")
        return archive
    }

    @Test("a restore adds only what the library lacks: a clip deleted since comes back, the clips it has keep their plays and words, and a second restore adds nothing")
    func merge() async throws {
        // Given a backup, and since then a deletion, more plays and a new title
        let library = try await Fixture.livedInForBackup()
        let archive = try await backup(library)
        let rows = try library.recordings()
        let deleted = try library.delete(rows[0].id)
        _ = try library.countPlay(of: rows[1], secondsListened: 1, completed: true)
        _ = try library.edit(rows[2].id) { $0.title = "Renamed after the backup" }
        let before = try library.recordings()

        // When the backup is restored into it, twice
        let first = try await Outcome.of(["restore", archive.path, "--library", library.url.path])
        let second = try await Outcome.of(["restore", archive.path, "--library", library.url.path])

        // Then only the deleted clip came back, as it was; the rest are as the library had them
        #expect(first.status == 0 && first.error.contains("Restored 1 clip; 3 already in the library"), "\(first.error)")
        #expect(second.status == 0 && second.error.contains("Restored 0 clips; 4 already in the library"), "\(second.error)")
        let back = try #require(try library.recording(deleted.id))
        #expect(back.title == deleted.title && back.playCount == deleted.playCount && back.notes == deleted.notes)
        for row in before {
            let now = try #require(try library.recording(row.id))
            #expect(now.title == row.title && now.playCount == row.playCount)
        }
        #expect(try library.recordings().count == 4)

        // And a delete-all after it leaves no word of any clip in the library folder
        let deleteAll = try await Outcome.of(["delete-all", "--yes", "--library", library.url.path])
        #expect(deleteAll.status == 0, "\(deleteAll.error)")
        for path in Fixture.contents(of: library.url).keys {
            guard let bytes = FileManager.default.contents(atPath: path) else { continue }
            for row in before { #expect(bytes.range(of: Data(row.title.utf8)) == nil, "\(row.title) is still in \(path)") }
        }
    }

    /// The manifest of the backup at `archive`, as tar unpacks it.
    func manifest(_ archive: URL) async throws -> [String: Any] {
        let read = try await run("tar", ["-xOf", archive.path, "cravey-backup/manifest.json"])
        try #require(read.status == 0, "\(read.error)")
        return try #require(try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [String: Any])
    }

    @Test("a backup carries the library's reminders (format 3, reminders.json) and a restore adds those the library lacks; one without reminders stays format 2")
    func reminders() async throws {
        // Given a library with a clip and no reminder: its backup is format 2, with no reminders.json
        let library = try await Fixture.library(titles: ["Breathe"])
        let clip = try #require(try library.recordings().first)
        let plain = try await manifest(try await backup(library))
        #expect(plain["version"] as? Int == 2)
        #expect((plain["files"] as? [[String: Any]])?.contains { $0["path"] as? String == "reminders.json" } == false)

        // When it has two reminders, one offering the clip, one paused until resumed, and is backed up
        let kept = try await offPool { () -> [Reminder] in
            let offering = try library.reminders.add(Reminder(time: TimeOfDay(parsing: "18:30"), days: .weekdays, clip: clip.id))
            _ = try library.reminders.add(Reminder(time: TimeOfDay(parsing: "9am"), days: .weekends))
            _ = try library.reminders.pause(2, until: .distantFuture)
            return [offering, try library.reminders.reminder(2)]
        }
        let archive = try await backup(library)

        // Then the backup is format 3 and names reminders.json, as --json prints reminders
        let carried = try await manifest(archive)
        #expect(carried["version"] as? Int == 3)
        #expect((carried["files"] as? [[String: Any]])?.contains { $0["path"] as? String == "reminders.json" } == true)
        let json = try await run("tar", ["-xOf", archive.path, "cravey-backup/reminders.json"])
        #expect(json.output.contains("\"18:30\"") && json.output.contains("\"forever\"") && json.output.contains(clip.id.description), "\(json.output)")

        // And restored into a new library, the reminders come back with the clip, once
        let other = temporaryLibrary()
        let first = try await Outcome.of(["restore", archive.path, "--library", other.path])
        let second = try await Outcome.of(["restore", archive.path, "--library", other.path])
        #expect(first.status == 0 && first.error.contains("Restored 2 reminders: `cravey remind resume` makes their timers"), "\(first)")
        #expect(second.status == 0 && !second.error.contains("reminder"), "\(second)")
        let restored = try await offPool { try RecordingLibrary(at: other).reminders.all() }
        #expect(restored.count == 2 && zip(restored, kept).allSatisfy { $0.isSame(as: $1) && $0.pausedUntil == $1.pausedUntil })
    }

    @Test("a backup cravey wrote before clips kept waveforms (format 1) restores as it is; a repair then makes the waveforms")
    func formatOne() async throws {
        // Given a format-1 backup: a library of clips without waveforms, its manifest saying 1
        let library = try await Fixture.library(titles: ["Old", "Older"])
        let archive = try Fixture.altered(try await backup(library), "format-1.tar") { data in
            // The manifest's (the archive's last file; the clips' records have a version of their own).
            let version = try #require(data.range(of: Data("\"version\" : 2".utf8), options: .backwards))
            data.replaceSubrange(version, with: Data("\"version\" : 1".utf8))
        }

        // When it is restored into a new library
        let restored = temporaryLibrary()
        let restore = try await Outcome.of(["restore", archive.path, "--library", restored.path])

        // Then both clips are back as they were, without waveforms until a repair makes them
        #expect(restore.status == 0 && restore.error.contains("Restored 2 clips"), "\(restore.error)")
        try Fixture.expectSame(try RecordingLibrary(at: restored), as: library)
        let doctor = try await Outcome.of(["doctor", "--library", restored.path])
        let repair = try await Outcome.of(["doctor", "--repair", "--library", restored.path])
        #expect(doctor.status == 0 && doctor.output.contains("waveform not made yet: 2 recordings"), "\(doctor.output)")
        #expect(repair.status == 0 && repair.output.contains("Made the waveform of 2 recordings"), "\(repair.output)")
    }

    @Test("restore refuses a folder (64) and a missing file (66) (backup's refusals: BackupCommandTests)")
    func refusals() async throws {
        let library = try await Fixture.library(titles: ["Kept"])
        let folder = try await Outcome.of(["restore", temporaryFolder().path, "--library", library.url.path])
        #expect(folder.status == 64 && folder.error.contains("not a regular file"), "\(folder.error)")
        let missing = try await Outcome.of(["restore", temporaryFolder().appendingPathComponent("none.tar").path, "--library", library.url.path])
        #expect(missing.status == 66, "\(missing.error)")
    }

    @Test("a clip whose media is missing is left out and named; a file without a row holding a clip's place is left alone, and restored after a repair registers it")
    func leftOutAndBlocked() async throws {
        // Given a library whose first clip's file was lost by hand
        let library = try await Fixture.library(titles: ["Lost", "Kept"])
        let rows = try library.recordings()
        let lost = try #require(rows.first { $0.title == "Lost" })
        try FileManager.default.removeItem(at: library.url.appendingPathComponent(lost.filePath))

        // When it is backed up
        let archive = temporaryFolder().appendingPathComponent("b.tar")
        let made = try await Outcome.of(["backup", "--output", archive.path, "--library", library.url.path])

        // Then the backup holds the other clip and names the lost one
        #expect(made.status == 0 && made.error.contains("Backed up 1 clip") && made.error.contains("Lost"), "\(made.error)")

        // Given a library where the kept clip's file is there without its row (its row removed by hand)
        let kept = try #require(rows.first { $0.title == "Kept" })
        try editByHand(library.url.appendingPathComponent("library.sqlite"), "DELETE FROM recording WHERE id = '\(kept.id.description)';")
        let file = library.url.appendingPathComponent(kept.filePath)
        let bytes = try Data(contentsOf: file)

        // When the backup is restored there
        let blocked = try await Outcome.of(["restore", archive.path, "--library", library.url.path])

        // Then that file is left as it was, and the way on named; after a repair it is there
        #expect(blocked.status == 0 && blocked.error.contains("Not restored: Kept") && blocked.error.contains("doctor --repair"), "\(blocked.error)")
        #expect(try Data(contentsOf: file) == bytes)
        let repair = try await Outcome.of(["doctor", "--repair", "--library", library.url.path])
        #expect(repair.output.contains("Registered") && repair.output.contains("\"Kept\""), "\(repair.output)")
        let again = try await Outcome.of(["restore", archive.path, "--library", library.url.path])
        #expect(again.status == 0 && again.error.contains("1 already in the library"), "\(again.error)")
    }
}
