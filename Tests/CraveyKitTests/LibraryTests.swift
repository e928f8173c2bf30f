import CraveyTestSupport
import Foundation
import GRDB
import SystemPackage
import Testing
@testable import CraveyKit
@testable import CraveyCore

@Suite("The recordings library", .temporaryFiles)
struct LibraryTests {
    @Test("Quick Play is the top 3 by plays, ties broken by last played, then newest")
    func quickPlay() async throws {
        let library = try await Fixture.library(clips: 5)
        let all = try library.recordings()  // newest first: Clip 4 ... Clip 0
        let byTitle = Dictionary(uniqueKeysWithValues: all.map { ($0.title, $0.id) })
        let early = Date(timeIntervalSince1970: 1_800_000_000), late = early.addingTimeInterval(60)
        try library.countPlay(of: byTitle["Clip 0"]!, secondsListened: 1, completed: true, at: early)
        try library.countPlay(of: byTitle["Clip 0"]!, secondsListened: 1, completed: true, at: early)
        try library.countPlay(of: byTitle["Clip 1"]!, secondsListened: 1, completed: true, at: early)
        try library.countPlay(of: byTitle["Clip 2"]!, secondsListened: 1, completed: false, at: late)
        // Clip 3 and Clip 4 have no plays: the newer one (Clip 4) would come first.
        #expect(try library.quickPlay().map(\.title) == ["Clip 0", "Clip 2", "Clip 1"])
        let played = try #require(try library.recording(byTitle["Clip 2"]!))
        #expect(played.playCount == 1 && played.lastPlayedAt == late)
        #expect(try library.plays(of: played.id).map(\.completed) == [false])
    }

    @Test("a unique id prefix finds the recording; an unknown one is 'not found'")
    func idPrefix() async throws {
        let library = try await Fixture.library(clips: 2)
        let recording = try #require(try library.recordings().first)
        let id = recording.id.description
        #expect(try library.recording(matching: String(id.prefix(8))).id == recording.id)
        #expect(try library.recording(matching: id.uppercased()).id == recording.id)
        expectError(.notFound) { _ = try library.recording(matching: "ffffffff-0000") }
        expectError(.invalidInput) { _ = try library.recording(matching: "") }
        expectError(.invalidInput) { _ = try library.recording(matching: "%") }
    }

    @Test("edit validates like recording; a cleared title is the automatic one again; plays survive")
    func edit() async throws {
        let library = try await Fixture.library(clips: 1)
        let recording = try #require(try library.recordings().first)
        try library.countPlay(of: recording.id, secondsListened: 1, completed: true)
        let edited = try library.edit(recording.id) { $0.title = "Breathe"; $0.notes = "Ten minutes"; $0.purpose = .craving }
        #expect(edited.title == "Breathe" && edited.notes == "Ten minutes" && edited.purpose == .craving)
        #expect(edited.playCount == 1)
        expectError(.invalidInput) { _ = try library.edit(recording.id) { $0.title = String(repeating: "x", count: 41) } }
        #expect(try library.recording(recording.id)?.title == "Breathe")
        let cleared = try library.edit(recording.id) { $0.title = ""; $0.purpose = nil }
        #expect(cleared.title == RecordingMetadata.automaticTitle(for: recording.createdAt))
        #expect(cleared.purpose == nil && cleared.notes == "Ten minutes")
    }

    @Test("delete removes the row, the file and its play events")
    func delete() async throws {
        let library = try await Fixture.library(clips: 2)
        let recording = try #require(try library.recordings().first)
        try library.countPlay(of: recording.id, secondsListened: 1, completed: true)
        let file = library.fileURL(recording.filePath)
        try library.delete(recording.id)
        #expect(try library.recording(recording.id) == nil)
        #expect(try library.plays(of: recording.id).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(try library.count() == 1)
        #expect(try library.doctor.examine(repair: false, deleteUnplayable: false).isHealthy)
    }

    @Test("when removing the file fails (injected), the row, its plays and the file are all back")
    func deleteFailureKeepsRow() async throws {
        let library = try await Fixture.library(clips: 1)
        let recording = try #require(try library.recordings().first)
        try library.countPlay(of: recording.id, secondsListened: 1, completed: true)
        library.store.files!.faults.removal = { _ throws(Errno) in throw .ioError }
        expectError(.cannotWrite) { try library.delete(recording.id) }
        let kept = try #require(try library.recording(recording.id))
        #expect(kept.playCount == 1)
        #expect(try library.plays(of: recording.id).count == 1)
        #expect(FileManager.default.fileExists(atPath: library.fileURL(recording.filePath).path))
        #expect(try library.doctor.examine(repair: false, deleteUnplayable: false).isHealthy)
    }

    @Test("rows pointing outside the library never read or delete anything outside it")
    func confinement() async throws {
        let library = try await Fixture.library(clips: 0)
        let outside = library.url.deletingLastPathComponent()
            .appendingPathComponent("outside-\(UUID().uuidString).txt")
        try Data("not yours".utf8).write(to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        let link = library.recordingsURL.appendingPathComponent("audio_link.m4a")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)

        let paths = ["../../\(outside.lastPathComponent)", "../\(outside.lastPathComponent)", outside.path,
                     "Recordings/../../\(outside.lastPathComponent)", "Recordings/audio_link.m4a"]
        var ids: [RecordingID] = []
        for path in paths {
            let row = Recording(type: .audio, title: "evil", duration: 1, filePath: path, fileSize: 9)
            try library.insert(row)
            ids.append(row.id)
            // A stored path never names a file outside Recordings/, and a link there is never opened.
            #expect(StoredFile(path: path) == nil || path == "Recordings/audio_link.m4a")
            expectError(.invalidInput) { _ = try library.store.open(StoredFile(path: "Recordings/audio_link.m4a")!) }
            // The clip's own file is the only one it has: none is there, whatever the row says.
            expectError(.notFound) { _ = try library.fileURL(of: row) }
        }
        let report = try library.doctor.examine(repair: true, deleteUnplayable: true)
        #expect(Set(report.findings(.unsafePath).compactMap(\.id)) == Set(ids))
        #expect(try library.count() == 0)
        #expect(try String(contentsOf: outside, encoding: .utf8) == "not yours")
        // And deleting such a row deletes the clip's own files only.
        let row = Recording(type: .audio, title: "evil", duration: 1, filePath: paths[0], fileSize: 9)
        try library.insert(row)
        try library.delete(row.id)
        #expect(try String(contentsOf: outside, encoding: .utf8) == "not yours")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == outside.path)
    }

    @Test("delete-all leaves no media bytes, no rows, and no deleted titles in the database files")
    func deleteAll() async throws {
        let secret = "SECRET-TITLE-\(UUID().uuidString.prefix(8))"
        let library = try await Fixture.library(clips: 20, titles: [secret])
        // An orphan (a recording a crash cut off) and a stray thumbnail go too.
        try Data(repeating: 1, count: 1000).write(to: library.recordingsURL.appendingPathComponent("audio_\(RecordingID().description).m4a.partial"))
        try Data(repeating: 2, count: 100).write(to: library.thumbnailsURL.appendingPathComponent("video_\(RecordingID().description).jpg"))

        let summary = try library.storage.deleteAll()
        // 20 clips, each with its own copy of its words, and the 2 leftovers.
        #expect(summary.recordings == 20 && summary.files == 42)
        #expect(try library.count() == 0)
        #expect(try library.storage.report().totalBytes == 0)
        #expect(library.store.storedFiles().isEmpty)
        for suffix in ["", "-wal", "-shm"] {
            let url = library.url.appendingPathComponent(AppDatabase.fileName + suffix)
            guard let bytes = FileManager.default.contents(atPath: url.path) else { continue }
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(url.lastPathComponent) still holds a deleted title")
        }
    }

    @Test("doctor finds a cut-off recording, a missing file and an unplayable fragment, and repairs them")
    func doctor() async throws {
        let library = try await Fixture.library(clips: 2)
        let rows = try library.recordings()
        // A row whose file is gone.
        try FileManager.default.removeItem(at: library.fileURL(rows[0].filePath))
        // A playable orphan, as a crash leaves it, and an unplayable one.
        let orphanID = RecordingID()
        let orphan = library.fileURL(ClipFiles(id: orphanID, type: .audio).media(.recording))
        try FileManager.default.copyItem(at: try await Fixture.audio(seconds: 1.5), to: orphan)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: orphan.path)
        let garbage = library.recordingsURL.appendingPathComponent("audio_\(RecordingID().description).m4a.partial")
        try Data((0..<5000).map { UInt8($0 % 251) }).write(to: garbage)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: garbage.path)

        let report = try library.doctor.examine(repair: false, deleteUnplayable: false)
        #expect(report.findings(.missingFile).compactMap(\.id) == [rows[0].id])
        #expect(Set(report.findings.filter { [.orphanFile, .unplayableFile].contains($0.kind) }.map { $0.kind == .orphanFile }) == [true, false])
        #expect(!report.isHealthy)

        let repaired = try library.doctor.examine(repair: true, deleteUnplayable: false)
        #expect(repaired.repairs.count == 2)
        let recovered = try #require(try library.recording(orphanID))
        #expect(recovered.title.hasPrefix("Recovered "))
        #expect(abs(recovered.duration - 1.5) < 0.1)
        #expect(recovered.filePath == ClipFiles(id: orphanID, type: .audio).media().path)
        #expect(try library.recording(rows[0].id) == nil)
        #expect(FileManager.default.fileExists(atPath: garbage.path), "unplayable files stay unless asked")

        _ = try library.doctor.examine(repair: true, deleteUnplayable: true)
        #expect(!FileManager.default.fileExists(atPath: garbage.path))
        #expect(try library.doctor.examine(repair: false, deleteUnplayable: false).isHealthy)
    }

    @Test("doctor --repair deletes a recording fragment killed before its first sound (no packet), and keeps a damaged one unless asked")
    func soundlessFragment() async throws {
        // Given the fragment a recording killed before any audio leaves (header, no packet),
        // no longer held by its writer, and a damaged fragment with bytes in it
        let library = try await Fixture.library(clips: 1)
        let id = RecordingID()
        do {
            _ = try RecordingFileWriter(partialOf: id, in: library.store, options: RecordingOptions(), measuring: RecordingControl(sampleRate: 48_000, channels: 1))
            library.store.release(ClipFiles(id: id, type: .audio).media(.recording))
        }
        let empty = library.fileURL(ClipFiles(id: id, type: .audio).media(.recording))
        #expect(FileManager.default.fileExists(atPath: empty.path))
        let garbage = library.recordingsURL.appendingPathComponent("audio_\(RecordingID().description).m4a.partial")
        try Data((0..<5000).map { UInt8($0 % 251) }).write(to: garbage)

        // When the library is repaired, without --delete-unplayable
        let repaired = try library.doctor.examine(repair: true, deleteUnplayable: false)

        // Then the soundless fragment is gone and the damaged one stays
        #expect(!FileManager.default.fileExists(atPath: empty.path), "\(repaired.repairs)")
        #expect(FileManager.default.fileExists(atPath: garbage.path))
        #expect(try library.count() == 1)
    }

    @Test("an interrupted deletion is undone while the row exists")
    func interruptedDeletion() async throws {
        let library = try await Fixture.library(clips: 1)
        let recording = try #require(try library.recordings().first)
        // As a deletion a crash cut short leaves it: the media renamed aside, the row still there.
        let media = ClipFiles(recording).media()
        let marked = library.fileURL(media.renamed(".deleting-" + media.name))
        try FileManager.default.moveItem(at: library.fileURL(media), to: marked)
        let report = try library.doctor.examine(repair: true, deleteUnplayable: false)
        #expect(report.findings(.interruptedDeletion).count == 1 && report.findings(.missingFile).count == 1)
        #expect(!FileManager.default.fileExists(atPath: marked.path))
        #expect(try library.recording(recording.id) != nil, "the row stays: its file was restored")
        #expect(try library.doctor.examine(repair: false, deleteUnplayable: false).isHealthy)
    }
}

/// Expects `body` to throw a ``CraveyError`` of `kind`.
func expectError(_ kind: CraveyError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    #expect(sourceLocation: sourceLocation) { try body() } throws: { ($0 as? CraveyError)?.kind == kind }
}

@Suite("Fast row and JSON paths agree with Foundation and GRDB", .temporaryFiles)
struct FastPathTests {
    @Test("hand-parsed UUIDs equal Foundation's; malformed ones are refused; a RecordingID reads either case and prints lower case, as the command line prints ids")
    func uuids() {
        for _ in 0..<1000 {
            let id = UUID()
            #expect(Recording.uuid(id.uuidString) == id)
            #expect(Recording.uuid(id.uuidString.lowercased()) == id)
            #expect(RecordingID(id.uuidString) == RecordingID(id) && RecordingID(id).description == id.uuidString.lowercased())
        }
        for bad in ["", "not-a-uuid", String(repeating: "g", count: 36), UUID().uuidString + "0",
                    UUID().uuidString.replacingOccurrences(of: "-", with: "x")] {
            #expect(Recording.uuid(bad) == nil)
        }
    }

    @Test("hand-parsed stored dates equal what GRDB stored, to the millisecond")
    func dates() async throws {
        let library = try await Fixture.library(clips: 0)
        for seconds in [0.0, 951_782_400.5, 1_795_880_520.25, 4_102_444_799.999, -86_400.125] {
            let date = Date(timeIntervalSince1970: seconds)
            let recording = Recording(type: .audio, title: "t", createdAt: date, duration: 1,
                                      filePath: "Recordings/x-\(UUID()).m4a", fileSize: 1, lastPlayedAt: date)
            try library.insert(recording)
            let read = try #require(try library.recording(recording.id))
            #expect(abs(read.createdAt.timeIntervalSince1970 - seconds) < 0.0011, "\(seconds)")
            #expect(abs((read.lastPlayedAt?.timeIntervalSince1970 ?? 0) - seconds) < 0.0011)
        }
        #expect(Recording.storedDate("2026-13-01 00:00:00.000") == nil)
        #expect(Recording.storedDate("garbage") == nil)
    }

    @Test("the hand-written JSON decodes to the same recordings, nasty titles included")
    func json() async throws {
        let titles = ["quote \" backslash \\ tab \t bell \u{7}", "line\nbreak\r", "💪🏽 ünïcödé", "/slash/"]
        let library = try await Fixture.library(clips: titles.count)
        // Control characters can no longer be typed into a title; older rows may still hold them.
        for (row, title) in zip(try library.recordings(), titles) {
            _ = try library.storeWords(of: row.id, title: title, notes: nil, purpose: nil)
        }
        let recordings = try library.recordings()
        #expect(Set(recordings.map(\.title)) == Set(titles))
        let decoded = try Recording.jsonDecoder().decode([Recording].self, from: RecordingJSON.encode(recordings))
        #expect(decoded.map(\.title) == recordings.map(\.title))
        #expect(decoded.map(\.id) == recordings.map(\.id))
        #expect(decoded.map { Int($0.createdAt.timeIntervalSince1970) } == recordings.map { Int($0.createdAt.timeIntervalSince1970) })
        let one = try Recording.jsonDecoder().decode(Recording.self, from: RecordingJSON.encode(recordings[0]))
        #expect(one.title == recordings[0].title && one.notes == nil && one.purpose == nil)
    }
}
