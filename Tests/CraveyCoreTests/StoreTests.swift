@testable import CraveyCore
import CraveyTestSupport
import Foundation
import GRDB
import SystemPackage
import Testing

/// The library's store on a real folder and a real SQLite file: one transaction per change, the
/// clips' copies written before the commit, deletions undone by a rollback, the writers' lock
/// held against another process, and a `delete-all` journal finished by whoever comes next.
@Suite("The store: one transaction into the library")
final class StoreTests: Sendable {
    let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-store-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// A library holding one saved clip of a few bytes (the store does not look inside media).
    func libraryWithClip(title: String = "Breathe") throws -> (RecordingLibrary, Recording) {
        let library = try RecordingLibrary(at: folder.appendingPathComponent("library-\(UUID().uuidString)"))
        let clip = ClipFiles(id: RecordingID(), type: .audio)
        let media = try library.store.create(clip.media(.recording))
        try media.write(Data("media bytes".utf8))
        try media.close()
        let recording = try library.store.write { tx in
            try tx.save(clip.media(.recording), as: Recording(id: clip.id, type: .audio, title: title, createdAt: Date(timeIntervalSince1970: 1_790_000_000.123_4),
                                                              duration: 1, filePath: "", fileSize: 0))
        }
        return (library, recording)
    }

    func contents(_ library: RecordingLibrary, _ file: StoredFile?) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: library.url.path + "/" + #require(file).path))
    }

    @Test("a save renames the file to the clip's name, reads its size and writes its copy; the copy is the record of its row")
    func save() throws {
        // Given a clip saved through the store
        let (library, recording) = try libraryWithClip()
        let clip = ClipFiles(recording)

        // Then its files are the clip's own names, and the copy holds the row as it was committed
        #expect(library.store.storedFiles() == [clip.file(.copy)!.path, clip.media().path])
        #expect(recording.fileSize == 11 && recording.filePath == clip.media().path)
        let row = try #require(try library.recording(recording.id))
        #expect(try contents(library, clip.file(.copy)) == ClipRecord(recording: row, plays: []).encoded())
        let record = try #require(library.store.record(of: clip))
        #expect(record.recording.id == row.id && record.recording.title == row.title && record.recording.fileSize == row.fileSize)
        #expect(abs(record.recording.createdAt.timeIntervalSince(row.createdAt)) < 0.000_5)
    }

    @Test("every change of a clip writes its copy before the commit: an edit, a counted play")
    func copiesFollowChanges() throws {
        // Given a saved clip
        let (library, recording) = try libraryWithClip()
        let copy = ClipFiles(recording).file(.copy)

        // When it is edited and played
        try library.edit(recording.id) { $0.title = "Slow down" }
        try library.countPlay(of: recording.id, secondsListened: 2, completed: true, at: Date(timeIntervalSince1970: 1_790_000_100.5))

        // Then its copy holds the new words and the play, as the row does
        let record = try #require(ClipRecord(decoding: try contents(library, copy)))
        #expect(record.recording.title == "Slow down" && record.recording.playCount == 1)
        #expect(record.plays.map(\.secondsListened) == [2])
        #expect(try contents(library, copy) == ClipRecord(recording: try #require(try library.recording(recording.id)),
                                                         plays: try library.plays(of: recording.id)).encoded())
    }

    @Test("a change writes the copies of the clips it changed and no other's: the word index's own rows, changed with a title, are not clips")
    func copiesOfTheClipChangedAlone() throws {
        // Given a library of 12 saved clips (the word index's rows, numbered from 1, name some of their row numbers)
        let library = try RecordingLibrary(at: folder.appendingPathComponent("library-\(UUID().uuidString)"))
        var clips: [ClipFiles] = []
        for index in 0..<12 {
            let clip = ClipFiles(id: RecordingID(), type: .audio)
            let media = try library.store.create(clip.media(.recording))
            try media.write(Data("media bytes".utf8))
            try media.close()
            try library.store.write { tx in
                _ = try tx.save(clip.media(.recording), as: Recording(id: clip.id, type: .audio, title: "Clip \(index)", createdAt: Date(),
                                                                      duration: 1, filePath: "", fileSize: 0))
            }
            clips.append(clip)
        }
        let inodes = { try clips.map { clip in try FileManager.default.attributesOfItem(atPath: library.url.path + "/" + #require(clip.file(.copy)).path)[.systemFileNumber] as? UInt64 } }
        let before = try inodes()

        // When one clip's title changes (its words in the index with it)
        try library.edit(clips[5].id) { $0.title = "Slow down" }

        // Then its copy alone was written again (a new file), every other left as it was
        let after = try inodes()
        #expect(after[5] != before[5])
        #expect(zip(before, after).enumerated().filter { $0.offset != 5 && $0.element.0 != $0.element.1 }.map(\.offset) == [])
    }

    @Test("a change that throws changes nothing: not the row, not the copy, and a deletion begun puts its files back")
    func rollback() throws {
        // Given a saved clip and its files as they are
        let (library, saved) = try libraryWithClip()
        let recording = try #require(try library.recording(saved.id))
        let before = try library.store.storedFiles().map { ($0, try Data(contentsOf: library.url.appendingPathComponent($0))) }
        struct Refused: Error {}

        // When a counted play and a deletion each throw before they commit
        #expect(throws: Refused.self) {
            try library.store.write { tx in
                try tx.repository.recordPlay(of: recording.id, secondsListened: 1, completed: true)
                throw Refused()
            }
        }
        #expect(throws: Refused.self) {
            try library.store.write { tx in
                _ = try tx.delete(recording.id)
                throw Refused()
            }
        }

        // Then the row, the files and their bytes are as they were
        #expect(try library.recording(recording.id) == recording)
        #expect(try library.store.storedFiles().map { ($0, try Data(contentsOf: library.url.appendingPathComponent($0))) }
            .elementsEqual(before, by: ==))
    }

    @Test("a deletion takes every file the clip owns, and never one its row names that is not its own")
    func deletionByName() throws {
        // Given a clip whose row names a file of someone else's beside it
        let (library, recording) = try libraryWithClip()
        let foreign = library.url.appendingPathComponent("Recordings/notes-of-mine.m4a")
        try Data("mine".utf8).write(to: foreign)
        try library.store.write { tx in
            try tx.db.execute(sql: "UPDATE recording SET filePath = 'Recordings/notes-of-mine.m4a' WHERE id = ?",
                              arguments: [recording.id.description])
        }

        // When it is deleted
        try library.delete(recording.id)

        // Then its own files are gone, and the other file is untouched
        #expect(library.store.storedFiles() == ["Recordings/notes-of-mine.m4a"])
        #expect(try Data(contentsOf: foreign) == Data("mine".utf8))
    }

    @Test("a record reads back as itself, its dates to the millisecond; a version 1 copy (seconds since 1970, plays with ids) reads too")
    func records() throws {
        let id = RecordingID()
        let recording = Recording(id: id, type: .video, title: "Q \"and\" A", notes: "two\nlines", purpose: .milestone,
                                  createdAt: Date(timeIntervalSince1970: 1_790_000_000.123), duration: 12.345_678_9,
                                  filePath: ClipFiles(id: id, type: .video).media().path,
                                  thumbnailPath: ClipFiles(id: id, type: .video).file(.thumbnail)!.path, fileSize: 4096,
                                  playCount: 1, lastPlayedAt: Date(timeIntervalSince1970: 1_790_000_060.999),
                                  loudness: LoudnessMeasurement(integrated: -.infinity, truePeak: -3.25))
        let plays = [PlayEvent(recordingId: id, playedAt: Date(timeIntervalSince1970: 1_790_000_060.999), secondsListened: 3.5, completed: false)]
        let record = ClipRecord(recording: recording, plays: plays)
        let read = try #require(ClipRecord(decoding: record.encoded()))
        #expect(read.encoded() == record.encoded())
        #expect(abs(read.recording.createdAt.timeIntervalSince(recording.createdAt)) < 0.0005)
        #expect(read.recording.loudness == recording.loudness && read.plays.count == 1)

        let old = """
            {"loudness":{"integrated":-18.5,"truePeak":-2},"plays":[{"completed":true,"id":4,"playedAt":1790000060.25,\
            "recordingId":"\(id.description)","secondsListened":2}],"recording":{"createdAt":1790000000.5,\
            "duration":3,"fileSize":9,"filePath":"Recordings/audio_\(id.description).m4a","id":"\(id.description)",\
            "lastPlayedAt":null,"notes":null,"playCount":1,"purpose":null,"thumbnailPath":null,"title":"Old","type":"audio"},"version":1}
            """
        let v1 = try #require(ClipRecord(decoding: Data(old.utf8)))
        #expect(v1.recording.title == "Old" && v1.recording.createdAt == Date(timeIntervalSince1970: 1_790_000_000.5))
        #expect(v1.plays.map(\.playedAt) == [Date(timeIntervalSince1970: 1_790_000_060.25)])
        #expect(v1.recording.loudness == LoudnessMeasurement(integrated: -18.5, truePeak: -2))
        // A copy whose plays name another clip is no record of this one.
        #expect(ClipRecord(decoding: Data(old.replacingOccurrences(of: "\"recordingId\":\"\(id.description)\"",
                                                                   with: "\"recordingId\":\"\(RecordingID().description)\"").utf8)) == nil)
    }

    @Test("a delete-all cut off after its journal is finished by whoever changes the library next; a journal of another database deletes nothing")
    func journal() throws {
        // Given two libraries, each with a clip, and a delete-all journal left in each: one naming
        // its own database, one naming another
        let (cutOff, _) = try libraryWithClip()
        let (moved, kept) = try libraryWithClip()
        let own = try cutOff.store.read { db in try RecordingRepository(db).libraryID() }
        try Data(own.utf8).write(to: cutOff.url.appendingPathComponent("delete-all.pending"))
        try Data("another database".utf8).write(to: moved.url.appendingPathComponent("delete-all.pending"))

        // When each is opened again
        let reopened = try RecordingLibrary(at: cutOff.url), other = try RecordingLibrary(at: moved.url)

        // Then the first deletion is finished, the second journal goes and its clip stays
        #expect(try reopened.count() == 0 && reopened.store.storedFiles().isEmpty)
        #expect(try other.recording(kept.id) != nil && other.store.storedFiles().count == 2)
        for library in [reopened, other] {
            #expect(!FileManager.default.fileExists(atPath: library.url.appendingPathComponent("delete-all.pending").path))
        }
    }

    @Test("clips being written: a file held by its writer is, one nobody holds is a leftover, one gone since it was listed was saved by its writer meanwhile")
    func clipsBeingWritten() throws {
        // Given an import being written (held), one a crash left (nobody holds it) and one listed
        // before its writer saved it under the clip's name (gone now)
        let library = try RecordingLibrary(at: folder.appendingPathComponent("library-\(UUID().uuidString)"))
        let held = ClipFiles(id: RecordingID(), type: .audio), left = ClipFiles(id: RecordingID(), type: .audio)
        let saved = ClipFiles(id: RecordingID(), type: .audio)
        let writing = try library.store.create(held.media(.importing))
        defer { library.store.discard(writing) }
        try Data("cut off".utf8).write(to: library.url.appendingPathComponent(left.media(.importing).path))

        // When the store is asked which of the three are being written
        let listed = [held.media(.importing), left.media(.importing), saved.media(.importing)]
        let answer = library.store.clipsBeingWritten(listed, rows: [])

        // Then the held one and the gone one are, and the leftover is not
        #expect(answer == [held, saved])
    }

    @Test("a delete-all deletes a clip whose new media a trim is writing: its row and its files go, the file being written stays its writer's (the race campaign's resurrected clip)")
    func deleteAllDuringTrim() throws {
        // Given a saved clip whose new media another change is writing (held, as a trim or a
        // clean-up holds it until its own transaction)
        let (library, recording) = try libraryWithClip()
        let clip = ClipFiles(recording)
        let replacement = try library.store.create(clip.media(.importing))
        defer { library.store.discard(replacement) }

        // When every clip is deleted
        let deletion = try library.store.write { tx in try tx.deleteAll() }

        // Then the clip is gone, row and files: nothing is left that a repair would register
        // again; only the file its writer holds is there, for its writer to remove
        #expect(deletion.recordings == 1 && deletion.failures.isEmpty)
        #expect(try library.recording(recording.id) == nil)
        #expect(library.store.storedFiles() == [clip.media(.importing).path])
    }
}
