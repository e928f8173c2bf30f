import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// What a clip owns is one list (``ClipFiles/Part/all``): a part added to it is carried by
/// backup and restore, known to doctor and `--repair`, and deleted with its clip, with no other
/// change anywhere.
@Suite("A clip's parts, listed once", .temporaryFiles)
struct ClipPartsTests {
    /// A part defined in this file alone: a clip's words, original (nothing makes them again),
    /// carried by backups. Its suffix is one no other test's file has: the list is the process's.
    static let words = ClipFiles.Part(name: "test words", suffix: ".test-words.txt", origin: .original, isBackedUp: true,
                                      remaking: .never)

    /// What a backup's `manifest.json` says of its files.
    struct Manifest: Decodable {
        struct File: Decodable {
            var path: String
            var size: Int64
            var sha256: String
        }

        var files: [File]
    }

    @Test("a part added in a test alone goes into the backup and its manifest, comes back with a restore byte for byte, is no foreign file to doctor but an orphan once its clip is gone, and goes with its clip")
    func addedPart() async throws {
        ClipFiles.Part.register(Self.words)
        let exists = { (url: URL) in FileManager.default.fileExists(atPath: url.path) }
        // Given a library of two clips, the first with its words (every byte value, so no text
        // handling could pass unseen), and a person's file named like them
        let words = Data((0...255).map { UInt8($0) } + Array("the words".utf8))
        let library = try await Fixture.library(clips: 2)
        let rows = try await offPool { try library.recordings() }
        let (first, second) = (ClipFiles(rows[0]), ClipFiles(rows[1]))
        let file = try #require(first.file(Self.words))
        try words.write(to: library.fileURL(file))
        let mine = library.fileURL(file.path + ".mine")
        try Data("mine".utf8).write(to: mine)

        // When doctor looks, the words are the clip's: only the person's file is reported
        let before = try await offPool { try library.doctor.examine(repair: false, deleteUnplayable: false) }
        #expect(before.findings(.foreignFile).compactMap(\.path) == [file.path + ".mine"] && before.findings(.orphanPart).isEmpty && before.problems.count == 1)

        // When the library is backed up, the archive holds the words under their own name and
        // its manifest lists them with their size and checksum (tar and sha256sum as witnesses)
        let archive = temporaryFolder().appendingPathComponent("library.tar")
        let unpacked = temporaryFolder().appendingPathComponent("unpacked")
        let inside = unpacked.appendingPathComponent("cravey-backup")
        let carried = inside.appendingPathComponent(file.path)
        let (backedUp, tar, digest) = try await offPool {
            let summary = try library.archive.backup(to: archive)
            try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
            return (summary.clips, try runBlocking("tar", ["-xf", archive.path, "-C", unpacked.path]), try runBlocking("sha256sum", [carried.path]))
        }
        #expect(backedUp == 2 && tar.status == 0, "\(tar.error)")
        #expect(try Data(contentsOf: carried) == words)
        #expect(!exists(inside.appendingPathComponent(file.path + ".mine")))
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: inside.appendingPathComponent("manifest.json")))
        let listed = try #require(manifest.files.first { $0.path == file.path })
        #expect(listed.size == Int64(words.count) && digest.output.hasPrefix(listed.sha256 + " "))

        // When it is restored into a new library, the words come back byte for byte, to the
        // clip that had them only, and doctor finds nothing wrong
        let (copy, restored, restoredReport) = try await offPool {
            let copy = try RecordingLibrary(at: temporaryLibrary())
            let summary = try copy.archive.restore(from: archive)
            return (copy, summary.restored.count, try copy.doctor.examine(repair: false, deleteUnplayable: false))
        }
        #expect(restored == 2)
        #expect(try Data(contentsOf: copy.fileURL(file)) == words)
        #expect(!exists(copy.fileURL(try #require(second.file(Self.words)))))
        #expect(restoredReport.isHealthy && restoredReport.findings(.foreignFile).isEmpty && restoredReport.findings(.orphanPart).isEmpty)

        // When the clip is deleted, its words go with it
        let afterDelete = try await offPool {
            _ = try copy.delete(rows[0].id)
            return try copy.doctor.examine(repair: false, deleteUnplayable: false)
        }
        #expect(!exists(copy.fileURL(file)) && afterDelete.isHealthy)

        // When words are left by a clip that is gone, doctor reports them as its orphan, not as
        // a file cravey did not make, and a repair removes them; the person's file stays
        let gone = try #require(ClipFiles(id: RecordingID(), type: .audio).file(Self.words))
        try words.write(to: library.fileURL(gone))
        let orphan = try await offPool {
            let orphan = try library.doctor.examine(repair: false, deleteUnplayable: false)
            _ = try library.doctor.examine(repair: true, deleteUnplayable: false)
            return orphan
        }
        #expect(orphan.findings(.orphanPart).compactMap(\.path) == [gone.path] && orphan.findings(.foreignFile).compactMap(\.path) == [file.path + ".mine"])
        #expect(orphan.problems.contains("file of a clip that is gone: \(gone.path)"))
        #expect(!exists(library.fileURL(gone)) && exists(library.fileURL(file)))
        #expect(try Data(contentsOf: mine) == Data("mine".utf8))

        // When every clip is deleted, the words go with their clip and the person's file stays
        let deleted = try await offPool { try library.storage.deleteAll() }
        #expect(deleted.recordings == 2 && deleted.untouched == [file.path + ".mine"])
        #expect(!exists(library.fileURL(file)) && exists(mine))
    }

    /// A part made from the media, defined in this file alone: the clip's length in
    /// milliseconds, as text, made by its maker from the finisher's one decoding. Made only in
    /// the libraries of ``makingLength``: the list is the process's, and other tests count the
    /// files of their clips.
    static let length = PartMaker(part: ClipFiles.Part(name: "test length", suffix: ".test-length.txt", origin: .derived,
                                                       isBackedUp: true, remaking: .fromMedia)) { media, decoded in
        guard makingLength.withLock({ $0.contains { media.url.path.contains("/\($0)/") } }) else { return nil }
        return Data(String(Int((decoded.duration * 1000).rounded())).utf8)
    }
    /// The names of the libraries' folders (each test's own, a UUID's) where it is made.
    static let makingLength = Locked<[String]>([])

    /// A derived part that follows a cut, defined in this file alone: times in seconds, one a
    /// line, as a transcript's words are; a trim keeps those inside the cut, moved by its start.
    static let times = ClipFiles.Part(name: "test times", suffix: ".test-times.txt", origin: .derived, isBackedUp: true,
                                      remaking: .onRequest, moved: { data, kept in
        let times = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
        return Data(times.filter(kept.contains).map { String(format: "%.3f", $0 - kept.lowerBound) }.joined(separator: "\n").utf8)
    })

    @Test("a part made from the media and one that follows a cut, added in a test alone: an import makes the first, a trim makes it again from the new media and moves the second, and a repair finishing a cut-off change makes the first again and drops the second")
    func derivedParts() async throws {
        PartMaker.register(Self.length)
        ClipFiles.Part.register(Self.times)
        let text = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "missing" }
        // Given a 4 s clip imported: its length is made with it
        let folder = temporaryLibrary()
        let library = try RecordingLibrary(at: folder)
        Self.makingLength.withLock { $0.append(folder.lastPathComponent) }
        let source = try await Fixture.audio(seconds: 4)
        let imported = try await library.importFile(at: source, metadata: RecordingMetadata(title: "Parts"))
        let clip = ClipFiles(imported)
        let (length, times) = (library.fileURL(try #require(clip.file(Self.length.part))), library.fileURL(try #require(clip.file(Self.times))))
        #expect(text(length) == String(Int((imported.duration * 1000).rounded())))

        // When times are written (as a transcript is) and the clip is trimmed to 1-3 s
        try Data("0.5\n1.5\n2.25\n3.5".utf8).write(to: times)
        let trimmed = try await library.trim(imported, from: 1, to: 3)

        // Then its length is the new media's, and the times inside the cut moved with it
        #expect(text(length) == String(Int((trimmed.duration * 1000).rounded())) && abs(trimmed.duration - 2) < 0.05)
        #expect(text(times) == "0.500\n1.250")

        // When the length is lost and a repair finishes a trim a crash cut off (as after any
        // new media but a trim's, a clean-up's), it is made again from the media in place, and
        // the times go (which media they were of is unknown)
        try FileManager.default.removeItem(at: length)
        try Data("0.5".utf8).write(to: times)
        try Data().write(to: library.fileURL(try #require(clip.file(.journal))))
        let report = try await offPool { try library.doctor.examine(repair: true, deleteUnplayable: false) }
        #expect(report.repairs.contains { $0.contains("Finished the change") }, "\(report.repairs)")
        #expect(text(length) == String(Int((trimmed.duration * 1000).rounded())))
        #expect(!FileManager.default.fileExists(atPath: times.path))
    }
}

