import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// The library commands, run as the built binaries against real SQLite files, where a process is
/// the point: 8 processes playing at once, stdin no terminal, cravey without cravey-media. (The
/// rest in process: CraveyCommandsTests' LibraryCommandTests.)
@Suite("cravey library commands", .temporaryFiles)
struct LibraryCommandTests {
    @Test("8 processes x 60 plays of one clip at once end at exactly 480 plays and 480 events")
    func concurrentPlays() async throws {
        // (60 each, not 250: a play rewrites the clip's copy, which lists every play, so the
        // cost grows with the plays; 8 x 250 took 63 s of CPU in the debug build, a sixth of the
        // phase in parallel, for the same race between 8 writers.)
        let library = try await Fixture.library(clips: 1)
        let recording = try #require(try library.recordings().first)
        let helper = URL(fileURLWithPath: Cravey.executable).deletingLastPathComponent()
            .appendingPathComponent("cravey-test-helper").path
        let results = try await withThrowingTaskGroup(of: CommandResult.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await run(helper, ["plays", library.url.path, recording.id.uuid.uuidString, "60"])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results { #expect(result.status == 0, "\(result.error)") }
        #expect(try library.recording(recording.id)?.playCount == 480)
        #expect(try library.plays(of: recording.id).count == 480)
    }

    @Test("delete with stdin no terminal and without --yes refuses (exit 64) naming --yes, and deletes nothing (--yes: CraveyCommandsTests)")
    func deleteConfirmation() async throws {
        let library = try await Fixture.library(titles: ["Don't Do It"])
        let recording = try #require(try library.recordings().first)
        let refused = try await Cravey.run(["delete", String(recording.id.description.prefix(6)), "--library", library.url.path])
        #expect(refused.status == 64)
        #expect(refused.error.contains("--yes"))
        #expect(try library.count() == 1)
    }

    @Test("without cravey-media beside it, a media command exits 1 saying what is missing; library commands still work")
    func missingMediaExecutable() async throws {
        let alone = await URL(fileURLWithPath: try RoutingTests.craveyAlone())
        let folder = alone.deletingLastPathComponent()
        let devices = try await run(alone.path, ["devices"], environment: Cravey.environment())
        #expect(devices.status == 1)
        #expect(devices.error.contains("cravey-media") && !devices.error.contains("Error:"), "\(devices.error)")
        let list = try await run(alone.path, ["list", "--library", folder.appendingPathComponent("lib").path],
                                        environment: Cravey.environment())
        #expect(list.status == 0, "\(list.error)")
    }

    @Test("delete-all --yes empties the library; doctor then reports it healthy")
    func deleteAllAndDoctor() async throws {
        let library = try await Fixture.library(clips: 5)
        let path = library.url.path
        let refused = try await Cravey.run(["delete-all", "--library", path])
        #expect(refused.status == 64)
        #expect(try library.count() == 5)
        let deleted = try await Cravey.run(["delete-all", "--yes", "--json", "--library", path])
        #expect(deleted.status == 0, "\(deleted.error)")
        #expect(try library.count() == 0 && library.storage.report().totalBytes == 0)
        let doctor = try await Cravey.run(["doctor", "--library", path])
        #expect(doctor.status == 0 && doctor.output.contains("healthy"))
    }
}
