import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey play`, `cravey quickplay N` and `cravey devices`, run in process (``Outcome``) as
/// `cravey-media` runs them, against the private sound server. (The plays on a sink of the
/// test's own, its monitor recorded as the witness: PlayedAtSinkTests.swift; plays at once in 6
/// processes, signals, a starved player, a terminal's keys, a video's window or its absence, and
/// a dead sound server: the CLI's PlayCommandTests.) Named as the CLI's suite, so that
/// scripts/test's real-time streams (`\.PlayCommandTests/`) run it.
// Serialized: each test plays in real time (see PlaybackTests).
@Suite("cravey play, in process", .temporaryFiles, .serialized)
struct PlayCommandTests {
    /// A library holding `clips` (each imported from a file).
    func library(_ clips: [URL]) async throws -> (library: RecordingLibrary, ids: [String]) {
        let folder = temporaryLibrary()
        var ids: [String] = []
        for clip in clips {
            let imported = try await Outcome.of(["import", "--library", folder.path, clip.path])
            #expect(imported.status == 0, "\(imported.error)")
            ids.append(imported.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return (try RecordingLibrary(at: folder), ids)
    }

    func playCount(_ library: RecordingLibrary, _ id: String) throws -> Int {
        try library.recording(matching: id).playCount
    }

    @Test("devices lists the cameras after the sources and sinks: here none, which it says, with the sound devices unchanged")
    func devicesListCameras() async throws {
        // Given this machine, which has no camera
        let cameras = try Cameras.list()

        // When the devices are listed
        let json = try await Outcome.of(["devices", "--json"])
        let table = try await Outcome.of(["devices"])

        // Then the JSON holds a row of kind "camera" for each camera (none here), and the table
        // the sound devices, then the cameras or "No cameras found" on stderr
        #expect(json.status == 0 && table.status == 0, "\(json.error) \(table.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        let cameraRows = rows.filter { $0["kind"] as? String == "camera" }
        #expect(cameraRows.compactMap { $0["name"] as? String } == cameras.map(\.path))
        #expect(rows.allSatisfy { $0["kind"] as? String == "camera" || $0["modes"] == nil })
        #expect(table.output.hasPrefix("DEFAULT  KIND"))
        if cameras.isEmpty {
            #expect(table.error.contains("No cameras found."), "\(table.error)")
            #expect(!table.output.contains("CAMERA"))
        } else {
            #expect(table.output.contains("\nCAMERA") && cameras.allSatisfy { table.output.contains($0.path) })
        }
    }
}
