import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// Loudness measured when clips are recorded, imported or repaired: here what the library
/// stores and reports; LoudnessStorageWitnessTests.swift checks the measurements against
/// ffmpeg's `ebur128` on the library's file.
@Suite("Loudness of the library's clips", .temporaryFiles)
struct LoudnessStorageTests {
    @Test("a video without sound is imported without a measurement, and doctor does not ask for one")
    func silentVideo() async throws {
        let library = try RecordingLibrary(at: temporaryLibrary())
        let source = try await Fixture.make("mp4", ["-f", "lavfi", "-i", "testsrc=duration=1:size=160x120:rate=25",
                                              "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        let recording = try Importer.importFile(source, into: library.store, metadata: try RecordingMetadata(title: "Mute"))
        #expect(recording.loudness == nil)
        #expect(try library.recording(recording.id)?.loudness == nil)
        #expect(try library.doctor.examine(repair: false, deleteUnplayable: false).findings(.missingLoudness).isEmpty)
        #expect(try library.analysis.measureLoudness(of: recording) == nil)
    }

    @Test("--repair says which clip it could not measure, and goes on with the others")
    func doctorRepairFailure() async throws {
        // Given two clips without measurement, one of whose files was replaced by garbage of the same size
        let library = try await Fixture.library(clips: 2)
        let rows = try library.recordings()
        let damaged = library.fileURL(rows[0].filePath)
        try Data(repeating: 0x5A, count: Int(rows[0].fileSize)).write(to: damaged)

        // When doctor repairs
        let repaired = try library.doctor.examine(repair: true, deleteUnplayable: false)

        // Then the other is measured and the damaged one is named
        #expect(repaired.measuredLoudness == 1)
        #expect(repaired.loudnessFailures.count == 1 && repaired.loudnessFailures[0].contains(rows[0].id.description))
        #expect(try library.recording(rows[1].id)?.loudness != nil)
        #expect(try library.recording(rows[0].id)?.loudness == nil)
    }

    @Test("measuring a clip stores the measurement in its row; a missing file is .notFound and stores nothing")
    func measureUseCase() async throws {
        let library = try await Fixture.library(clips: 2)
        let rows = try library.recordings()
        let measured = try #require(try library.analysis.measureLoudness(of: rows[0]))
        #expect(try library.recording(rows[0].id)?.loudness == measured)

        try FileManager.default.removeItem(at: library.fileURL(rows[1].filePath))
        let error = #expect(throws: CraveyError.self) { try library.analysis.measureLoudness(of: rows[1]) }
        #expect(error?.kind == .notFound)
        #expect(try library.recording(rows[1].id)?.loudness == nil)
    }
}
