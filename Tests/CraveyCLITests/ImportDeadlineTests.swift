import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// How soon an import stops: run one at a time by scripts/test, as every *DeadlineTests suite is.
@Suite("Import deadlines", .temporaryFiles)
struct ImportDeadlineTests {
    @Test("Ctrl-C during a long import ends it within 2 s, exit 130, nothing stored")
    func ctrlCStopsAtOnce() async throws {
        // Given an import of 20 minutes of WAV under way (about 15 s of transcoding here)
        let library = temporaryLibrary()
        let long = try await Fixture.make("wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1200:sample_rate=16000"])
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: Cravey.executable)
        process.arguments = ["import", long.path, "--library", library.path]
        process.environment = Cravey.environment()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Once it is writing its file
        let writing = try await poll(within: 20, every: 0.01) {
            (try? FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Recordings").path))?
                .contains { $0.hasSuffix(".importing") } == true
        }
        #expect(writing, "the import never started writing")

        // When it is interrupted
        let interrupted = ContinuousClock.now
        kill(process.processIdentifier, SIGINT)
        try await offPool { process.waitForExit() }

        // Then it ended within 2 s with 130, and the library holds nothing
        #expect(ContinuousClock.now - interrupted < .seconds(2))
        #expect(process.terminationStatus == 130)
        let opened = try RecordingLibrary(at: library)
        #expect(try opened.count() == 0 && opened.store.storedFiles().isEmpty, "\(opened.store.storedFiles())")
    }
}
