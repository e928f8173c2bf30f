import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey backup` and `cravey restore`: the whole library in one file any tar opens, and back,
/// with every byte, word, date and play; a damaged file restores nothing.
@Suite("Backup and restore", .temporaryFiles)
struct BackupTests {
    /// A library of three audio clips with words and plays and one imported video (with its
    /// thumbnail and loudness).
    func livedIn() async throws -> RecordingLibrary {
        let library = try await Fixture.library(titles: ["Why I stopped", "Breathe", "Day 30"])
        for (index, recording) in try library.recordings().enumerated() {
            try library.edit(recording.id) { words in
                words.notes = "Note \(index), with \"quotes\" and\na line"
                words.purpose = [.motivational, .craving, .milestone][index]
            }
            for _ in 0...index { try library.countPlay(of: recording, secondsListened: 0.25 * Double(index + 1), completed: index > 0) }
        }
        let video = try await Cravey.run(["import", try await Fixture.video(seconds: 1, size: "160x120").path, "--title", "Me, on day one",
                                          "--library", library.url.path])
        try #require(video.status == 0, "\(video.error)")
        return library
    }

    /// Every row of `copy` is the row of `original` with the same id: the same words, dates,
    /// plays, loudness and bytes.
    func expectSame(_ copy: RecordingLibrary, as original: RecordingLibrary, ids: [RecordingID]? = nil,
                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        for row in try original.recordings() where ids?.contains(row.id) ?? true {
            let back = try #require(try copy.recording(row.id), "\(row.title) is missing", sourceLocation: sourceLocation)
            #expect(back.title == row.title && back.notes == row.notes && back.purpose == row.purpose && back.type == row.type,
                    sourceLocation: sourceLocation)
            #expect(abs(back.createdAt.timeIntervalSince(row.createdAt)) < 0.002 && back.duration == row.duration, sourceLocation: sourceLocation)
            #expect(back.playCount == row.playCount && back.fileSize == row.fileSize, sourceLocation: sourceLocation)
            #expect(back.lastPlayedAt.map { abs($0.timeIntervalSince(row.lastPlayedAt!)) < 0.002 } ?? (row.lastPlayedAt == nil),
                    sourceLocation: sourceLocation)
            #expect(back.loudness == row.loudness, sourceLocation: sourceLocation)
            let (plays, originalPlays) = (try copy.plays(of: row.id), try original.plays(of: row.id))
            #expect(plays.map(\.secondsListened) == originalPlays.map(\.secondsListened)
                    && plays.map(\.completed) == originalPlays.map(\.completed), sourceLocation: sourceLocation)
            #expect(try Data(contentsOf: copy.url.appendingPathComponent(back.filePath))
                    == Data(contentsOf: original.url.appendingPathComponent(row.filePath)), sourceLocation: sourceLocation)
            #expect((row.thumbnailPath == nil) == (back.thumbnailPath == nil), sourceLocation: sourceLocation)
            if let thumbnail = row.thumbnailPath, let copied = back.thumbnailPath {
                #expect(try Data(contentsOf: copy.url.appendingPathComponent(copied))
                        == Data(contentsOf: original.url.appendingPathComponent(thumbnail)), sourceLocation: sourceLocation)
            }
            // Its waveform, when it had one; a clip saved before waveforms were kept has none.
            let waveform = ClipFiles(id: row.id, type: row.type).file(.waveform)!.path
            let (copied, kept) = (try? Data(contentsOf: copy.url.appendingPathComponent(waveform)),
                                  try? Data(contentsOf: original.url.appendingPathComponent(waveform)))
            #expect(copied == kept, sourceLocation: sourceLocation)
        }
    }

    /// The names under the library folder, with their sizes: what "nothing changed" compares.
    func contents(of folder: URL) -> [String: Int] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey]) else { return [:] }
        var found: [String: Int] = [:]
        for case let url as URL in walker {
            found[url.path] = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? -1
        }
        return found
    }

    func backup(_ library: RecordingLibrary) async throws -> URL {
        let archive = temporaryFolder().appendingPathComponent("clips-\(UUID().uuidString.prefix(8)).tar")
        let made = try await Cravey.run(["backup", "--output", archive.path, "--library", library.url.path])
        try #require(made.status == 0, "\(made.error)")
        return archive
    }

    @Test("a backup is a tar file of mode 0600 whose files sha256sum agrees with, and restores into an empty library byte for byte and row for row")
    func roundTrip() async throws {
        // Given a lived-in library and its backup
        let library = try await livedIn()
        let archive = try await backup(library)

        // Then it is private, tar lists it, and every file unpacked matches the manifest
        let mode = try FileManager.default.attributesOfItem(atPath: archive.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let listing = try await run("tar", ["-tf", archive.path])
        #expect(listing.status == 0 && listing.output.contains("cravey-backup/manifest.json"), "\(listing.error)")
        let unpacked = temporaryFolder().appendingPathComponent("unpacked")
        try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
        let untar = try await run("tar", ["-xf", archive.path, "-C", unpacked.path])
        try #require(untar.status == 0, "\(untar.error)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: unpacked.appendingPathComponent("cravey-backup/manifest.json"))) as? [String: Any]
        let files = try #require(manifest?["files"] as? [[String: Any]])
        // Media and record of each clip, the video's thumbnail and waveform (the audio clips,
        // saved as before waveforms were kept, have none: a backup restores them without).
        #expect(files.count == 4 * 2 + 2)
        #expect(files.filter { ($0["path"] as? String)?.hasSuffix(".peaks.dat") == true }.count == 1)
        for file in files {
            let path = try #require(file["path"] as? String)
            let sum = try await run("sha256sum", [unpacked.appendingPathComponent("cravey-backup/" + path).path])
            #expect(sum.output.prefix(64) == (file["sha256"] as? String ?? "")[...], "\(path)")
        }

        // And on a terminal a backup shows its progress, then what it wrote
        let shown = try await Cravey.runOnTerminal(["backup", "--output", temporaryFolder().appendingPathComponent("again.tar").path,
                                                    "--library", library.url.path])
        #expect(shown.status == 0 && shown.output.contains("Backing up… 100%") && shown.output.contains("Backed up 4 clips"), "\(shown.output)")

        // When it is restored into a library that is not there yet
        let restored = temporaryLibrary()
        let restore = try await Cravey.run(["restore", archive.path, "--json", "--library", restored.path])
        try #require(restore.status == 0, "\(restore.error)")

        // Then every clip is back as it was, and the library is healthy
        let summary = try JSONSerialization.jsonObject(with: Data(restore.output.utf8)) as? [String: Any]
        #expect((summary?["restored"] as? [Any])?.count == 4 && summary?["alreadyThere"] as? Int == 0)
        let copy = try RecordingLibrary(at: restored)
        #expect(try copy.recordings().count == 4)
        try expectSame(copy, as: library)
        let doctor = try await Cravey.run(["doctor", "--library", restored.path])
        #expect(doctor.status == 0, "\(doctor.output)")
        // And each clip's own copy of its words is the original's, byte for byte
        for recording in try library.recordings() {
            let copyPath = try #require(ClipFiles(recording).file(.copy)).path
            #expect(try Data(contentsOf: copy.fileURL(copyPath)) == Data(contentsOf: library.fileURL(copyPath)), "\(copyPath)")
        }
    }

    @Test("a restore adds only what the library lacks: a clip deleted since comes back, the clips it has keep their plays and words, and a second restore adds nothing")
    func merge() async throws {
        // Given a backup, and since then a deletion, more plays and a new title
        let library = try await livedIn()
        let archive = try await backup(library)
        let rows = try library.recordings()
        let deleted = try library.delete(rows[0].id)
        _ = try library.countPlay(of: rows[1], secondsListened: 1, completed: true)
        _ = try library.edit(rows[2].id) { $0.title = "Renamed after the backup" }
        let before = try library.recordings()

        // When the backup is restored into it, twice
        let first = try await Cravey.run(["restore", archive.path, "--library", library.url.path])
        let second = try await Cravey.run(["restore", archive.path, "--library", library.url.path])

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
        let deleteAll = try await Cravey.run(["delete-all", "--yes", "--library", library.url.path])
        #expect(deleteAll.status == 0, "\(deleteAll.error)")
        for path in contents(of: library.url).keys {
            guard let bytes = FileManager.default.contents(atPath: path) else { continue }
            for row in before { #expect(bytes.range(of: Data(row.title.utf8)) == nil, "\(row.title) is still in \(path)") }
        }
    }

    /// A backup changed as `change` says, as a damaged disk, a cut-off copy or a hand would.
    func altered(_ archive: URL, _ name: String, _ change: (inout Data) throws -> Void) throws -> URL {
        var data = try Data(contentsOf: archive)
        try change(&data)
        let url = temporaryFolder().appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    @Test("a backup damaged, cut short, altered, added to or of another kind restores nothing (exit 65), and makes no library")
    func damaged() async throws {
        // Given a good backup and broken copies of it
        let library = try await livedIn()
        let archive = try await backup(library)
        let data = try Data(contentsOf: archive)
        let mediaOffset = try #require(data.range(of: Data("cravey-backup/Recordings/audio_".utf8))?.lowerBound) + 512 + 700
        let recordOffset = try #require(data.range(of: Data("\"title\"".utf8))?.upperBound)
        let waveformName = try #require(data.range(of: Data(".peaks.dat".utf8))?.lowerBound)
        let waveformOffset = waveformName / 512 * 512 + 512 + 30
        var broken = [
            try altered(archive, "bit.tar") { $0[mediaOffset] ^= 0x04 },
            try altered(archive, "waveform.tar") { $0[waveformOffset] ^= 0x01 },
            try altered(archive, "record.tar") { $0[recordOffset + 2] ^= 0x01 },
            try altered(archive, "short.tar") { $0 = $0.prefix($0.count / 2) },
            try altered(archive, "no-end.tar") { $0 = $0.prefix($0.count - 1024) },
            try await Fixture.audio(seconds: 0.2),
        ]
        // a file added by hand, which its manifest does not list
        let added = try altered(archive, "added.tar") { _ in }
        let extra = temporaryFolder().appendingPathComponent("cravey-backup/Recordings")
        try FileManager.default.createDirectory(at: extra, withIntermediateDirectories: true)
        try Data("not mine".utf8).write(to: extra.appendingPathComponent("audio_\(RecordingID().description).m4a"))
        let append = try await run("tar", ["-rf", added.path, "-C", temporaryFolder().path, "cravey-backup"])
        try #require(append.status == 0, "\(append.error)")
        broken.append(added)
        // another program's tar
        let foreign = temporaryFolder().appendingPathComponent("other.tar")
        _ = try await run("tar", ["-cf", foreign.path, "-C", Fixture.audio(seconds: 0.2).deletingLastPathComponent().path, "."])
        broken.append(foreign)

        let before = contents(of: library.url)
        for file in broken {
            // When it is restored into the library, and into a library not there yet
            let into = try await Cravey.run(["restore", file.path, "--library", library.url.path])
            let fresh = temporaryLibrary()
            let new = try await Cravey.run(["restore", file.path, "--library", fresh.path])

            // Then both refuse, say so, and nothing changed or was made
            #expect(into.status == 65 && into.error.contains("is not a whole cravey backup") && into.error.contains("Nothing was restored"),
                    "\(file.lastPathComponent): \(into.status) \(into.error)")
            #expect(new.status == 65, "\(file.lastPathComponent): \(new.error)")
            #expect(contents(of: library.url) == before, "\(file.lastPathComponent)")
            #expect(!FileManager.default.fileExists(atPath: fresh.path), "\(file.lastPathComponent)")
        }
    }

    @Test("a backup cravey wrote before clips kept waveforms (format 1) restores as it is; a repair then makes the waveforms")
    func formatOne() async throws {
        // Given a format-1 backup: a library of clips without waveforms, its manifest saying 1
        let library = try await Fixture.library(titles: ["Old", "Older"])
        let archive = try altered(try await backup(library), "format-1.tar") { data in
            // The manifest's (the archive's last file; the clips' records have a version of their own).
            let version = try #require(data.range(of: Data("\"version\" : 2".utf8), options: .backwards))
            data.replaceSubrange(version, with: Data("\"version\" : 1".utf8))
        }

        // When it is restored into a new library
        let restored = temporaryLibrary()
        let restore = try await Cravey.run(["restore", archive.path, "--library", restored.path])

        // Then both clips are back as they were, without waveforms until a repair makes them
        #expect(restore.status == 0 && restore.error.contains("Restored 2 clips"), "\(restore.error)")
        try expectSame(try RecordingLibrary(at: restored), as: library)
        let doctor = try await Cravey.run(["doctor", "--library", restored.path])
        let repair = try await Cravey.run(["doctor", "--repair", "--library", restored.path])
        #expect(doctor.status == 0 && doctor.output.contains("waveform not made yet: 2 recordings"), "\(doctor.output)")
        #expect(repair.status == 0 && repair.output.contains("Made the waveform of 2 recordings"), "\(repair.output)")
    }

    @Test("restore refuses a folder (64) and a missing file (66) (backup's refusals: CraveyCommandsTests' BackupCommandTests)")
    func refusals() async throws {
        let library = try await Fixture.library(titles: ["Kept"])
        let folder = try await Cravey.run(["restore", temporaryFolder().path, "--library", library.url.path])
        #expect(folder.status == 64 && folder.error.contains("not a regular file"), "\(folder.error)")
        let missing = try await Cravey.run(["restore", temporaryFolder().appendingPathComponent("none.tar").path, "--library", library.url.path])
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
        let made = try await Cravey.run(["backup", "--output", archive.path, "--library", library.url.path])

        // Then the backup holds the other clip and names the lost one
        #expect(made.status == 0 && made.error.contains("Backed up 1 clip") && made.error.contains("Lost"), "\(made.error)")

        // Given a library where the kept clip's file is there without its row (its row removed with sqlite3)
        let kept = try #require(rows.first { $0.title == "Kept" })
        let sql = try await run("sqlite3", [library.url.appendingPathComponent("library.sqlite").path,
                                      "DELETE FROM recording WHERE id = '\(kept.id.description)';"])
        try #require(sql.status == 0, "\(sql.error)")
        let file = library.url.appendingPathComponent(kept.filePath)
        let bytes = try Data(contentsOf: file)

        // When the backup is restored there
        let blocked = try await Cravey.run(["restore", archive.path, "--library", library.url.path])

        // Then that file is left as it was, and the way on named; after a repair it is there
        #expect(blocked.status == 0 && blocked.error.contains("Not restored: Kept") && blocked.error.contains("doctor --repair"), "\(blocked.error)")
        #expect(try Data(contentsOf: file) == bytes)
        let repair = try await Cravey.run(["doctor", "--repair", "--library", library.url.path])
        #expect(repair.output.contains("Registered") && repair.output.contains("\"Kept\""), "\(repair.output)")
        let again = try await Cravey.run(["restore", archive.path, "--library", library.url.path])
        #expect(again.status == 0 && again.error.contains("1 already in the library"), "\(again.error)")
    }
}
