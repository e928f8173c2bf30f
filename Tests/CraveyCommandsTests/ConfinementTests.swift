import CraveyCore
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands

/// What the commands refuse, or leave as it was, about the library's folder and the files they
/// are pointed at, run in process (``Outcome``) as the two mains run them. (An empty --library
/// with the default library of its environment, a read-only mount and the files opened, by
/// strace: the CLI's ConfinementTests.)
@Suite("Confinement: the library never reaches outside its folder, in process", .temporaryFiles)
struct ConfinementTests {
    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// A folder outside every library, holding one file someone cares about.
    func outsideFolder() throws -> (folder: URL, file: URL) {
        let folder = temporaryFolder().appendingPathComponent("outside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let file = folder.appendingPathComponent("a.txt")
        try Data("keep".utf8).write(to: file)
        return (folder, file)
    }

    /// The names in `folder`, as bytes (a name need not be UTF-8). The corresponding C function
    /// is `readdir`.
    func names(in folder: String) throws -> [[UInt8]] {
        let stream = try #require(opendir(folder))
        defer { closedir(stream) }
        var found: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != Array(".".utf8) && name != Array("..".utf8) { found.append(name) }
        }
        return found
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

    @Test("a Recordings/ or Thumbnails/ that is a link is refused (exit 73) by delete-all and doctor --repair; nothing outside is deleted or re-moded")
    func linkedFolders() async throws {
        for linked in ["Recordings", "Recordings/Thumbnails"] {
            // Given a library whose folder is a link to a folder outside
            let (outside, file) = try outsideFolder()
            let library = temporaryLibrary()
            try FileManager.default.createDirectory(at: library.appendingPathComponent("Recordings"), withIntermediateDirectories: true)
            if linked == "Recordings" { try FileManager.default.removeItem(at: library.appendingPathComponent("Recordings")) }
            try FileManager.default.createSymbolicLink(at: library.appendingPathComponent(linked), withDestinationURL: outside)

            // When deleting everything and repairing
            let deleteAll = try await Outcome.of(["delete-all", "--yes", "--library", library.path])
            let doctor = try await Outcome.of(["doctor", "--repair", "--library", library.path])

            // Then both refuse, naming the link, and the folder outside is as it was
            for result in [deleteAll, doctor] {
                #expect(result.status == 73, "\(linked): \(result.error)")
                #expect(result.error.contains("symbolic link") && result.error.contains(linked), "\(result.error)")
            }
            #expect(try Data(contentsOf: file) == Data("keep".utf8), "\(linked)")
            #expect(try mode(outside.path) == 0o755, "\(linked)")
        }
    }

    @Test("doctor finds a thumbnail path pointing outside, --repair removes it, and the recording can then be deleted")
    func thumbnailOutside() async throws {
        // Given a row whose thumbnail path leaves the library
        let library = try await Fixture.library(titles: ["Odd"])
        var recording = try #require(try library.recordings().first)
        recording.thumbnailPath = "../x.jpg"
        try library.store.write { tx in try tx.repository.updateThumbnail(of: recording.id, to: recording.thumbnailPath) }
        let path = library.url.path

        // When the doctor looks, repairs, and the recording is deleted
        let doctor = try await Outcome.of(["doctor", "--library", path])
        let repair = try await Outcome.of(["doctor", "--repair", "--library", path])
        let delete = try await Outcome.of(["delete", recording.id.uuid.uuidString, "--yes", "--library", path])

        // Then the doctor saw it, repaired it, and the delete succeeded
        #expect(doctor.status == 1 && doctor.output.contains("../x.jpg"), "\(doctor.output)")
        #expect(repair.status == 0, "\(repair.output) \(repair.error)")
        #expect(delete.status == 0, "\(delete.error)")
        #expect(try library.count() == 0)
    }

    @Test("a link where a clip's waveform belongs is never followed: waveform, info and doctor --repair neither read nor write what it points at")
    func waveformLink() async throws {
        // Given a clip whose waveform file was replaced by a link to a file outside the library
        let library = try await Fixture.library(titles: ["Linked"])
        let row = try #require(try library.recordings().first)
        let outside = temporaryFolder().appendingPathComponent("outside.dat")
        let original = Waveform(sampleRate: 48_000, samplesPerPeak: 480, peaks: [.init(min: -9, max: 9)]).audiowaveformData()
        try original.write(to: outside)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: outside.path)
        let link = library.url.appendingPathComponent(ClipFiles(id: row.id, type: .audio).file(.waveform)!.path)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        let path = library.url.path

        // When its waveform is asked for, it is shown, and the library is repaired
        let waveform = try await Outcome.of(["waveform", row.id.uuid.uuidString, "--json", "--library", path])
        let info = try await Outcome.of(["info", row.id.uuid.uuidString, "--library", path])
        let repair = try await Outcome.of(["doctor", "--repair", "--library", path])

        // Then the waveform is made from the clip's media (not read through the link), info shows
        // none, the repair says it could not keep it, and the file outside is as it was
        #expect(waveform.status == 0 && !waveform.output.contains("[-9,9]") && waveform.output.contains("\"length\":5"), "\(waveform.error)")
        #expect(info.output.contains("Waveform:    not made yet"), "\(info.output)")
        #expect(repair.output.contains("Could not keep the waveform of \"Linked\"") && repair.output.contains("not a regular file"),
                "\(repair.output)")
        #expect(try Data(contentsOf: outside) == original)
        #expect(try FileManager.default.attributesOfItem(atPath: outside.path)[.posixPermissions] as? Int == 0o644)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == outside.path)
    }

    @Test("a file whose name is not UTF-8 is not cravey's: doctor names it (escaped), delete-all and doctor --repair leave it")
    func nonUTF8Names() async throws {
        // Given a file in Recordings/ whose name holds the byte 0xFF
        let library = try await Fixture.library(clips: 1)
        let folder = library.recordingsURL.path
        let name: [UInt8] = Array("bad-".utf8) + [0xFF, 0xFE] + Array(".m4a".utf8)
        let descriptor = (Array(folder.utf8) + [0x2F] + name + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o600) }
        }
        #expect(descriptor >= 0)
        close(descriptor)
        let path = library.url.path

        // When the doctor looks and repairs, then everything is deleted
        let doctor = try await Outcome.of(["doctor", "--library", path])
        let repair = try await Outcome.of(["doctor", "--repair", "--library", path])
        let deleteAll = try await Outcome.of(["delete-all", "--yes", "--library", path])

        // Then the doctor names it (escaped) as not cravey's, and the file is still there, unrenamed
        #expect(doctor.status == 1 && doctor.output.contains("not made by cravey: Recordings/bad-\\xFF\\xFE.m4a"), "\(doctor.output)")
        #expect(repair.status == 1, "\(repair.output)")
        #expect(deleteAll.status == 0 && deleteAll.error.contains("Left 1 file cravey did not make"), "\(deleteAll.error)")
        let left = try names(in: folder)
        #expect(left.count == 2 && left.contains(Array("Thumbnails".utf8)) && left.contains(name), "\(left)")
    }
}
