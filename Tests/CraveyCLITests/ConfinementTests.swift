import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Nothing outside the library folder is read, changed or deleted (issue 9, items 1 to 7), by the
/// commands that touch media or a folder's mounts; those `cravey` runs on the library itself
/// are checked in process (CraveyCommandsTests' ConfinementTests).
@Suite("Confinement: the library never reaches outside its folder", .temporaryFiles)
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
            let deleteAll = try await Cravey.run(["delete-all", "--yes", "--library", library.path])
            let doctor = try await Cravey.run(["doctor", "--repair", "--library", library.path])

            // Then both refuse, naming the link, and the folder outside is as it was
            for result in [deleteAll, doctor] {
                #expect(result.status == 73, "\(linked): \(result.error)")
                #expect(result.error.contains("symbolic link") && result.error.contains(linked), "\(result.error)")
            }
            #expect(try Data(contentsOf: file) == Data("keep".utf8), "\(linked)")
            #expect(try mode(outside.path) == 0o755, "\(linked)")
        }
    }

    @Test("--library \"\" exits 64 and leaves the default library alone")
    func emptyLibraryPath() async throws {
        // Given a default library (XDG_DATA_HOME/cravey) holding a clip
        let data = temporaryFolder().appendingPathComponent("xdg")
        let library = try RecordingLibrary(at: data.appendingPathComponent("cravey"))
        let clip = try await Fixture.audio(seconds: 0.5)
        _ = try await library.importFile(at: clip, metadata: RecordingMetadata())
        // When deleting everything in the library named ""
        let result = try await Cravey.run(["delete-all", "--yes", "--library", ""], environment: ["XDG_DATA_HOME": data.path])
        // Then it is a usage error and the clip is still there
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains("--library"))
        #expect(try library.count() == 1)
    }

    @Test("a read-only library lists, shows, exports to stdout and reports storage (exit 0); only writes fail, with 73, the record key saying to make it writable",
          .enabled(if: geteuid() == 0, "a read-only bind mount needs root"))
    func readOnlyLibrary() async throws {
        // Given a library with a clip, seen through a read-only bind mount in a private mount namespace
        let library = try await Fixture.library(titles: ["Calm"])
        let id = try #require(try library.recordings().first).id.description
        let source = library.url.path
        let mounted = temporaryFolder().appendingPathComponent("readonly").path
        try FileManager.default.createDirectory(atPath: mounted, withIntermediateDirectories: true)
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let commands = [["list"], ["info", id], ["export", "--format", "json"], ["storage"], ["delete", id, "--yes"],
                        ["edit", id, "--title", "Other"], ["record", "--toggle"]]
        let said = temporaryFolder().appendingPathComponent("said.txt").path
        let script = "mount --bind \(quoted(source)) \(quoted(mounted)) && mount -o remount,bind,ro \(quoted(mounted)) || exit 99\n"
            + commands.map { command in
                (["\(quoted(Cravey.executable))"] + command.map(quoted) + ["--library", quoted(mounted)]).joined(separator: " ")
                    + " >/dev/null 2>\(quoted(said)); echo $?"
            }.joined(separator: "\n")
        // When each command runs there
        let result = try await run("unshare", ["--mount", "--propagation", "private", "sh", "-c", script], environment: Cravey.environment())
        // Then the reads succeed and the writes exit 73, and nothing changed
        #expect(result.output.split(separator: "\n") == ["0", "0", "0", "0", "73", "73", "73"], "\(result.output) \(result.error)")
        #expect(try library.recordings().map(\.title) == ["Calm"])
        // And the record key says to make the library writable, not to remove a file it could not make
        let toggle = try String(contentsOfFile: said, encoding: .utf8)
        #expect(toggle.contains("Read-only file system") && toggle.contains("Make its folder writable") && !toggle.contains("Remove it"), "\(toggle)")
        #expect(!FileManager.default.fileExists(atPath: library.url.appendingPathComponent("record.toggle").path))
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
        let doctor = try await Cravey.run(["doctor", "--library", path])
        let repair = try await Cravey.run(["doctor", "--repair", "--library", path])
        let delete = try await Cravey.run(["delete", recording.id.uuid.uuidString, "--yes", "--library", path])

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
        let waveform = try await Cravey.run(["waveform", row.id.uuid.uuidString, "--json", "--library", path])
        let info = try await Cravey.run(["info", row.id.uuid.uuidString, "--library", path])
        let repair = try await Cravey.run(["doctor", "--repair", "--library", path])

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
        let doctor = try await Cravey.run(["doctor", "--library", path])
        let repair = try await Cravey.run(["doctor", "--repair", "--library", path])
        let deleteAll = try await Cravey.run(["delete-all", "--yes", "--library", path])

        // Then the doctor names it (escaped) as not cravey's, and the file is still there, unrenamed
        #expect(doctor.status == 1 && doctor.output.contains("not made by cravey: Recordings/bad-\\xFF\\xFE.m4a"), "\(doctor.output)")
        #expect(repair.status == 1, "\(repair.output)")
        #expect(deleteAll.status == 0 && deleteAll.error.contains("Left 1 file cravey did not make"), "\(deleteAll.error)")
        let left = try await run("ls", ["-A", folder])
        #expect(left.output.split(separator: "\n").count == 2 && left.output.contains("Thumbnails"), "\(left.output)")
    }
}

@Suite("Reads confined to the library's descriptor", .temporaryFiles)
struct ConfinedReadTests {
    @Test("no media file of the library is opened by a path: play, thumbnail and doctor --repair read beneath the folder's descriptor (strace)")
    func noPathOpens() async throws {
        // Given a library with a video clip
        let library = temporaryLibrary()
        let imported = try await Cravey.run(["import", "--library", library.path, try await Fixture.video(seconds: 1, size: "160x120").path])
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(imported.status == 0, "\(imported.error)")
        let sink = try await VirtualMicrophone()

        // When commands that read its media run under strace
        for arguments in [["play", id, "--no-count", "--device", sink.sinkName], ["thumbnail", id], ["doctor", "--repair"]] {
            let log = temporaryFolder().appendingPathComponent("strace-\(UUID().uuidString).txt")
            let traced = try await run("strace", ["-f", "-e", "trace=open,openat,openat2,creat", "-o", log.path,
                                                          Cravey.executable] + arguments + ["--library", library.path],
                                              environment: Cravey.environment())
            #expect(traced.status == 0, "\(arguments): \(traced.error)")

            // Then every open of a file in Recordings/ is relative to a folder's descriptor
            let opens = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
            let byPath = opens.filter { $0.contains("\(library.path)/Recordings") }
            #expect(byPath.isEmpty, "\(arguments) opened by path: \(byPath)")
            if arguments[0] != "doctor" {
                #expect(opens.contains { $0.contains("openat(") && $0.contains("\"video_") }, "\(arguments) read nothing?")
            }
        }
    }
}
