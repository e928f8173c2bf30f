import CraveyCore
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// A backup, made and restored in process (``Outcome``), as tar and sha256sum read it: the whole
/// library in one file any tar opens, and back, with every byte, word, date and play; a damaged
/// file, or one tar added to or wrote, restores nothing. (Its progress on a terminal: the CLI's
/// BackupTests.)
extension BackupCommandTests {
    /// Backs `library` up to a new file; returns it.
    func backup(_ library: RecordingLibrary) async throws -> URL {
        let archive = temporaryFolder().appendingPathComponent("clips-\(UUID().uuidString.prefix(8)).tar")
        let made = try await Outcome.of(["backup", "--output", archive.path, "--library", library.url.path])
        try #require(made.status == 0, "\(made.error)")
        return archive
    }

    @Test("a backup is a tar file of mode 0600 whose files sha256sum agrees with, and restores into an empty library byte for byte and row for row")
    func roundTrip() async throws {
        // Given a lived-in library and its backup
        let library = try await Fixture.livedInForBackup()
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

        // When it is restored into a library that is not there yet
        let restored = temporaryLibrary()
        let restore = try await Outcome.of(["restore", archive.path, "--json", "--library", restored.path])
        try #require(restore.status == 0, "\(restore.error)")

        // Then every clip is back as it was, and the library is healthy
        let summary = try JSONSerialization.jsonObject(with: Data(restore.output.utf8)) as? [String: Any]
        #expect((summary?["restored"] as? [Any])?.count == 4 && summary?["alreadyThere"] as? Int == 0)
        let copy = try RecordingLibrary(at: restored)
        #expect(try copy.recordings().count == 4)
        try Fixture.expectSame(copy, as: library)
        let doctor = try await Outcome.of(["doctor", "--library", restored.path])
        #expect(doctor.status == 0, "\(doctor.output)")
        // And each clip's own copy of its words is the original's, byte for byte
        for recording in try library.recordings() {
            let copyPath = try #require(ClipFiles(recording).file(.copy)).path
            #expect(try Data(contentsOf: copy.fileURL(copyPath)) == Data(contentsOf: library.fileURL(copyPath)), "\(copyPath)")
        }
    }

    @Test("a backup damaged, cut short, altered, added to or of another kind restores nothing (exit 65), and makes no library")
    func damaged() async throws {
        // Given a good backup and broken copies of it
        let library = try await Fixture.livedInForBackup()
        let archive = try await backup(library)
        let data = try Data(contentsOf: archive)
        let mediaOffset = try #require(data.range(of: Data("cravey-backup/Recordings/audio_".utf8))?.lowerBound) + 512 + 700
        let recordOffset = try #require(data.range(of: Data("\"title\"".utf8))?.upperBound)
        let waveformName = try #require(data.range(of: Data(".peaks.dat".utf8))?.lowerBound)
        let waveformOffset = waveformName / 512 * 512 + 512 + 30
        var broken = [
            try Fixture.altered(archive, "bit.tar") { $0[mediaOffset] ^= 0x04 },
            try Fixture.altered(archive, "waveform.tar") { $0[waveformOffset] ^= 0x01 },
            try Fixture.altered(archive, "record.tar") { $0[recordOffset + 2] ^= 0x01 },
            try Fixture.altered(archive, "short.tar") { $0 = $0.prefix($0.count / 2) },
            try Fixture.altered(archive, "no-end.tar") { $0 = $0.prefix($0.count - 1024) },
            try await Fixture.audio(seconds: 0.2),
        ]
        // a file added by hand, which its manifest does not list
        let added = try Fixture.altered(archive, "added.tar") { _ in }
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

        let before = Fixture.contents(of: library.url)
        for file in broken {
            // When it is restored into the library, and into a library not there yet
            let into = try await Outcome.of(["restore", file.path, "--library", library.url.path])
            let fresh = temporaryLibrary()
            let new = try await Outcome.of(["restore", file.path, "--library", fresh.path])

            // Then both refuse, say so, and nothing changed or was made
            #expect(into.status == 65 && into.error.contains("is not a whole cravey backup") && into.error.contains("Nothing was restored"),
                    "\(file.lastPathComponent): \(into.status) \(into.error)")
            #expect(new.status == 65, "\(file.lastPathComponent): \(new.error)")
            #expect(Fixture.contents(of: library.url) == before, "\(file.lastPathComponent)")
            #expect(!FileManager.default.fileExists(atPath: fresh.path), "\(file.lastPathComponent)")
        }
    }
}
