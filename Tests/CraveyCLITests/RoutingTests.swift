import CraveyCommands
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey` picks the executable by verb before parsing: media verbs go to `cravey-media`, run as
/// a person runs them (`cravey` alone in a folder, one process handing over to the other). (The
/// media commands' list and the hand-over's outcome in process: CraveyCommandsTests'
/// MediaRoutingTests.)
@Suite("Routing by verb", .temporaryFiles)
struct RoutingTests {
    /// A copy of `cravey` alone in a folder, without `cravey-media` beside it.
    static func craveyAlone() async throws -> String {
        let folder = temporaryLibrary()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let alone = folder.appendingPathComponent("cravey")
        // Copied by `cp`, not in this process: a child another test spawns meanwhile would inherit
        // the copy's writing descriptor (FileManager's is not close-on-exec), and running the
        // copy would fail with ETXTBSY ("Text file busy") for as long as that child lives.
        let copied = try await run("cp", [Cravey.executable, alone.path])
        guard copied.status == 0 else { throw TestFailure("cp failed: \(copied.error)") }
        return alone.path
    }

    @Test("quickplay lists in cravey; quickplay with a number goes to cravey-media")
    func quickPlayRoutes() async throws {
        // Given cravey without cravey-media beside it
        let alone = try await Self.craveyAlone()
        let library = temporaryLibrary().path

        // When listing, and when naming a clip to play
        let list = try await run(alone, ["quickplay", "--json", "--library", library], environment: Cravey.environment())
        let play = try await run(alone, ["--library", library, "quickplay", "2"], environment: Cravey.environment())

        // Then the list runs in cravey, and playing needs cravey-media
        #expect(list.status == 0 && list.output == "[]\n", "\(list.error)")
        #expect(play.status == 1 && play.error.contains("cravey-media"), "\(play.error)")
    }

    @Test("search runs in cravey alone: finding a clip by its words needs no FFmpeg")
    func searchRunsAlone() async throws {
        let alone = try await Self.craveyAlone()
        let library = try await Fixture.library(titles: ["Café morning"])
        let found = try await run(alone, ["search", "cafe", "--library", library.url.path], environment: Cravey.environment())
        #expect(found.status == 0 && found.output.contains("[Café] morning"), "\(found.error)")
        let none = try await run(alone, ["search", "nothing", "--json", "--library", library.url.path], environment: Cravey.environment())
        #expect(none.status == 0 && none.output == "[]\n", "\(none.output) \(none.error)")
    }

    @Test("cravey alone lists every command in its help and shows a media command's help; --version works")
    func help() async throws {
        // Given cravey without cravey-media beside it
        let alone = try await Self.craveyAlone()

        // When asking for help and the version
        let root = try await run(alone, ["--help"], environment: Cravey.environment())
        let record = try await run(alone, ["help", "record"], environment: Cravey.environment())
        let version = try await run(alone, ["--version"], environment: Cravey.environment())

        // Then every command is listed, and record's options are shown, without cravey-media
        #expect(root.status == 0)
        for verb in ["record", "play", "list", "info", "quickplay", "edit", "delete", "delete-all", "import", "export",
                     "storage", "doctor", "devices", "search"] {
            #expect(root.output.contains("\n  \(verb) "), "\(verb) missing from:\n\(root.output)")
        }
        #expect(record.status == 0 && record.output.contains("--seconds") && record.output.contains("USAGE: cravey record"))
        #expect(version.status == 0 && version.output == "0.1.0\n")
    }
}
