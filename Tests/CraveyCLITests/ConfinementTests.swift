import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Nothing outside the library folder is read, changed or deleted (issue 9, items 1 to 7), where
/// a process is the point: an empty --library with the default library of its environment, a
/// read-only mount, the files opened (strace). The rest is checked in process (CraveyCommandsTests'
/// ConfinementTests).
@Suite("Confinement: the library never reaches outside its folder", .temporaryFiles)
struct ConfinementTests {

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
