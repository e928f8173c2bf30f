import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// cravey touches only what is cravey's: it makes no library in a folder of other things, a
/// command that only reads makes nothing, and delete-all and repairs leave alone every file
/// cravey did not make. Run in process (``Outcome``), as the two mains run the commands.
@Suite("Only what is cravey's", .temporaryFiles)
struct OwnFilesTests {
    /// Every name under `folder`, with each file's bytes.
    func contents(_ folder: URL) throws -> [String: Data] {
        var found: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return found }
        for case let name as String in walker {
            found[name] = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) ?? Data()
        }
        return found
    }

    @Test("delete-all, doctor and doctor --repair leave a person's files in Recordings/ as they are, and name them; a WAV under a clip's name is never registered")
    func foreignFiles() async throws {
        // Given a library with a clip, and beside it a WAV, a text file, a cover picture in
        // Thumbnails/, and a WAV under a clip's name
        let library = try await Fixture.library(clips: 1)
        let recordings = library.recordingsURL
        let wav = try await Fixture.make("wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1"])
        try FileManager.default.copyItem(at: wav, to: recordings.appendingPathComponent("voice memo.wav"))
        try Data("call Sam".utf8).write(to: recordings.appendingPathComponent("notes.txt"))
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: library.thumbnailsURL.appendingPathComponent("cover.jpg"))
        let disguised = "audio_\(RecordingID().description).m4a"
        try FileManager.default.copyItem(at: wav, to: recordings.appendingPathComponent(disguised))
        let path = library.url.path
        let theirs = try contents(recordings).filter { !$0.key.hasPrefix("audio_") }

        // When the doctor looks, repairs, and everything is deleted
        let doctor = try await Outcome.of(["doctor", "--library", path])
        let repair = try await Outcome.of(["doctor", "--repair", "--library", path])
        let deleteAll = try await Outcome.of(["delete-all", "--yes", "--library", path])

        // Then each is named as not cravey's, none is registered, and every one is left, byte for byte
        for name in ["voice memo.wav", "notes.txt", "Thumbnails/cover.jpg", disguised] {
            #expect(doctor.output.contains("not made by cravey: Recordings/\(name)"), "\(name): \(doctor.output)")
        }
        #expect(doctor.status == 1 && repair.status == 1)
        #expect(!repair.output.contains("Registered"), "\(repair.output)")
        #expect(deleteAll.status == 0 && deleteAll.error.contains("Left 3 files cravey did not make"), "\(deleteAll.error)")
        #expect(try contents(recordings).filter { $0.key != "Thumbnails" } == theirs.filter { $0.key != "Thumbnails" })
        #expect(try RecordingLibrary(at: library.url).count() == 0)
    }

    @Test("--library at a folder of other things is refused (64) by every command, and nothing is made there")
    func notALibrary() async throws {
        // Given a folder of a person's files, open to others
        let folder = temporaryFolder().appendingPathComponent("Music")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try Data("song".utf8).write(to: folder.appendingPathComponent("song.mp3"))
        let before = try contents(folder)
        let clip = try await Fixture.audio(seconds: 0.5)

        // When commands that read and that write are pointed at it
        for arguments in [["list"], ["storage"], ["import", clip.path], ["record", "--seconds", "1"], ["delete-all", "--yes"], ["doctor", "--repair"]] {
            let result = try await Outcome.of(arguments + ["--library", folder.path])

            // Then each is refused with 64, saying what the folder is and what to do, no mode warning
            #expect(result.status == 64, "\(arguments): \(result.error)")
            #expect(result.error.contains("not a cravey library") && result.error.contains("empty folder"), "\(result.error)")
            #expect(!result.error.contains("chmod"), "\(result.error)")
        }
        // And the folder holds what it held
        #expect(try contents(folder) == before)
    }

    @Test("a command that only reads makes nothing: no folder, no database, no lock; a recording makes the library")
    func readingMakesNothing() async throws {
        // Given a library folder that is not there, and one that is empty
        let missing = temporaryFolder().appendingPathComponent("not-yet")
        let empty = temporaryFolder().appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)

        // When commands that only read run on them
        for library in [missing, empty] {
            for arguments in [["list", "--json"], ["quickplay", "--json"], ["storage", "--json"], ["export", "--format", "csv"], ["doctor"]] {
                let result = try await Outcome.of(arguments + ["--library", library.path])
                // Then they answer as for an empty library
                #expect(result.status == 0, "\(arguments): \(result.error)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.path).isEmpty)

        // And a command that adds a clip makes the library
        let imported = try await Outcome.of(["import", try await Fixture.audio(seconds: 0.5).path, "--library", missing.path])
        #expect(imported.status == 0, "\(imported.error)")
        #expect(FileManager.default.fileExists(atPath: missing.appendingPathComponent("library.sqlite").path))
    }

    @Test("a library a newer cravey wrote is read, but every change is refused (78) naming the version, and nothing changes")
    func newerLibrary() async throws {
        // Given a library with two clips, then migrated by a "newer cravey"
        let library = try await Fixture.library(clips: 2)
        let path = library.url.path
        try editByHand(library.url.appendingPathComponent("library.sqlite"), """
            INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future');
            INSERT OR REPLACE INTO libraryInfo (key, value) VALUES ('writtenBy', '9.0.0');
            """)
        let ids = try library.recordings().map { $0.id.description }
        let before = try contents(library.url.appendingPathComponent("Recordings"))

        // When it is listed, and changed every way
        let list = try await Outcome.of(["list", "--json", "--library", path])
        let changes = [["edit", ids[0], "--title", "New"], ["delete", ids[0], "--yes"], ["delete-all", "--yes"],
                       ["import", try await Fixture.audio(seconds: 0.5).path], ["record", "--seconds", "1"], ["doctor", "--repair"]]
        var refused: [Outcome] = []
        for arguments in changes { refused.append(try await Outcome.of(arguments + ["--library", path])) }

        // Then the list works, every change exits 78 naming both versions, and nothing changed
        #expect(list.status == 0 && list.output.contains(ids[1]), "\(list.error)")
        for (arguments, result) in zip(changes, refused) {
            #expect(result.status == 78, "\(arguments): \(result.status) \(result.error)")
            #expect(result.error.contains("cravey 9.0.0") && result.error.contains("Install the newer cravey"), "\(result.error)")
        }
        #expect(try contents(library.url.appendingPathComponent("Recordings")) == before)
        #expect(try RecordingLibrary(at: library.url).recordings().map(\.title).sorted() == ["Clip 0", "Clip 1"])
    }
}
