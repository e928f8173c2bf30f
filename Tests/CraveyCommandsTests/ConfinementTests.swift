import CraveyCore
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands

/// What the library commands `cravey` runs itself refuse, or leave as it was, about the
/// library's folder and the files they are pointed at, run in process (``Outcome``). The
/// commands that touch media (doctor, waveform, play) are checked on the built binaries: the
/// CLI's ConfinementTests.
@Suite("Confinement of the library commands, in process", .temporaryFiles)
struct ConfinementTests {
    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("a library.sqlite, -wal or -shm that is a link is refused (exit 73) by a reading and a writing command; the file outside is untouched")
    func linkedDatabase() async throws {
        for linked in ["library.sqlite", "library.sqlite-wal", "library.sqlite-shm"] {
            // Given a library whose database file (or one of SQLite's two companions) is a link to a file outside
            let outside = temporaryFolder().appendingPathComponent("outside-\(UUID().uuidString).txt")
            try Data("keep".utf8).write(to: outside)
            let library = try await Fixture.library(clips: 1).url
            try? FileManager.default.removeItem(at: library.appendingPathComponent(linked))
            try FileManager.default.createSymbolicLink(at: library.appendingPathComponent(linked), withDestinationURL: outside)

            // When listing and deleting everything
            let list = try await Outcome.of(["list", "--library", library.path])
            let deleteAll = try await Outcome.of(["delete-all", "--yes", "--library", library.path])

            // Then both refuse, naming the link, and the file outside is as it was
            for outcome in [list, deleteAll] {
                #expect(outcome.status == 73, "\(linked): \(outcome)")
                #expect(outcome.error.contains("symbolic link") && outcome.error.contains(linked), "\(outcome)")
            }
            #expect(try Data(contentsOf: outside) == Data("keep".utf8), "\(linked)")
        }
    }

    @Test("export --output refuses what exists (unless --force), anything not a regular file (even with --force), and any place inside the library")
    func exportOutput() async throws {
        let library = try await Fixture.library(titles: ["Kept"])
        let path = library.url.path
        let folder = temporaryFolder()
        let existing = folder.appendingPathComponent("existing.csv")
        try Data("mine".utf8).write(to: existing)
        let fifo = folder.appendingPathComponent("fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let link = folder.appendingPathComponent("link.csv")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: existing)
        let export = { (output: String, force: Bool) in
            try await Outcome.of(["export", "--format", "csv", "--output", output, "--library", path] + (force ? ["--force"] : []))
        }

        // An existing file: refused, unchanged; replaced with --force
        let refused = try await export(existing.path, false)
        #expect(refused.status == 64 && refused.error.contains("--force"), "\(refused)")
        #expect(try Data(contentsOf: existing) == Data("mine".utf8))
        // A named pipe and a link: refused even with --force, and still what they were
        for target in [fifo, link] {
            let forced = try await export(target.path, true)
            #expect(forced.status == 64, "\(target.lastPathComponent): \(forced)")
        }
        var info = stat()
        #expect(lstat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == existing.path)
        #expect(try Data(contentsOf: existing) == Data("mine".utf8))
        // The library's own database, and any new name inside the library: refused, the database intact
        for inside in ["library.sqlite", "export.csv", "Recordings/export.csv"] {
            let outcome = try await export(path + "/" + inside, true)
            #expect(outcome.status == 64 && outcome.error.contains("inside the library"), "\(inside): \(outcome)")
        }
        #expect(try library.recordings().map(\.title) == ["Kept"])
        #expect(!FileManager.default.fileExists(atPath: path + "/export.csv"))
        // --force replaces a regular file
        let replaced = try await export(existing.path, true)
        #expect(replaced.status == 0, "\(replaced)")
        #expect(try String(contentsOf: existing, encoding: .utf8).contains("Kept"))
    }

    @Test("no command changes the mode of what exists: a file named as the library stays 0644, a 0500 library stays 0500")
    func modesUnchanged() async throws {
        // Given a file where the library should be
        let file = temporaryFolder().appendingPathComponent("somefile")
        try Data("x".utf8).write(to: file)
        #expect(chmod(file.path, 0o644) == 0)
        // When listing it as a library
        let list = try await Outcome.of(["list", "--library", file.path])
        // Then it is refused (73) and keeps its mode
        #expect(list.status == 73, "\(list)")
        #expect(try mode(file.path) == 0o644)

        // Given a library the person made 0500
        let library = try await Fixture.library(clips: 1).url
        #expect(chmod(library.path, 0o500) == 0)
        // When listing it
        let listed = try await Outcome.of(["list", "--library", library.path])
        // Then it lists and stays 0500
        #expect(listed.status == 0, "\(listed)")
        #expect(try mode(library.path) == 0o500)
    }

    @Test("a library others can reach is warned about once on stderr, naming the fix, and left as it is")
    func openLibraryWarned() async throws {
        let library = try await Fixture.library(clips: 1).url
        #expect(chmod(library.path, 0o755) == 0)
        let listed = try await Outcome.of(["list", "--library", library.path])
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.error.components(separatedBy: "warning:").count == 2, "\(listed.error)")
        #expect(listed.error.contains("chmod 700 '\(library.path)'"), "\(listed.error)")
        #expect(try mode(library.path) == 0o755)

        // A private library: no warning at all
        #expect(chmod(library.path, 0o700) == 0)
        let quiet = try await Outcome.of(["list", "--library", library.path])
        #expect(!quiet.error.contains("warning"), "\(quiet.error)")
    }
}
