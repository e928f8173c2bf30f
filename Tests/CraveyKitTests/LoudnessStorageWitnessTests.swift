import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// Measurements stored when a clip is recorded, imported or repaired, checked against ffmpeg's
/// `ebur128` on the library's file (a mono clip as dual mono, as the library measures it).
extension LoudnessStorageTests {
    /// ffmpeg's measurement of a clip's file in the library.
    func witness(_ recording: Recording, in library: RecordingLibrary) async throws -> (integrated: Double, truePeak: Double) {
        let url = library.fileURL(recording.filePath)
        return try await Witness.ebur128(["-i", url.path], dualMono: try await Witness.ffprobeChannels(url) == 1)
    }

    func expectClose(_ measurement: LoudnessMeasurement?, _ witness: (integrated: Double, truePeak: Double),
                     sourceLocation: SourceLocation = #_sourceLocation) {
        guard let measurement else {
            Issue.record("no measurement", sourceLocation: sourceLocation)
            return
        }
        #expect(abs(measurement.integrated - witness.integrated) <= 0.3,
                "integrated \(measurement.integrated) vs ffmpeg \(witness.integrated)", sourceLocation: sourceLocation)
        #expect(abs(measurement.truePeak - witness.truePeak) <= 0.5,
                "true peak \(measurement.truePeak) vs ffmpeg \(witness.truePeak)", sourceLocation: sourceLocation)
    }

    @Test("a recording is saved with the loudness of its file, within 0.3 LU and 0.5 dB of ffmpeg's reading of it")
    func recorded() async throws {
        // Given a tone playing into a virtual microphone
        let library = try RecordingLibrary(at: temporaryLibrary())
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own

        // When 3 s are recorded and saved
        let recorder = try await library.record(RecordingOptions(source: microphone.monitor, maxDuration: 3))
        for await _ in recorder.events {}
        let saved = try await recorder.save(try RecordingMetadata(title: "Tone"))

        // Then the row holds the measurement, which agrees with ffmpeg's of the file
        let row = try #require(try library.recording(saved.id))
        #expect(row.loudness == saved.loudness)
        await expectClose(row.loudness, try witness(row, in: library))
        // A tone at half of full scale: loud, nowhere near silent
        let loudness = try #require(saved.loudness)
        #expect(loudness.integrated > -12 && loudness.truePeak > -7)
    }

    @Test("an import is saved with the loudness of the library's copy: AAC copied, WAV transcoded, a video's sound", arguments: [
        ("m4a", ["-f", "lavfi", "-i", "aevalsrc=0.02*sin(2*PI*440*t):s=48000:d=3", "-c:a", "aac", "-b:a", "96k"]),
        ("wav", ["-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.6:sample_rate=44100:seed=5:d=3", "-ac", "2", "-c:a", "pcm_s16le"]),
        ("mp4", ["-f", "lavfi", "-i", "testsrc=duration=2:size=160x120:rate=25", "-f", "lavfi", "-i", "sine=frequency=300:duration=2",
                 "-shortest", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"]),
    ])
    func imported(ext: String, arguments: [String]) async throws {
        // Given a media file
        let library = try RecordingLibrary(at: temporaryLibrary())
        let source = try await Fixture.make(ext, arguments)
        // When imported
        let recording = try Importer.importFile(source, into: library.store, metadata: try RecordingMetadata(title: "In"))
        // Then its row holds the loudness ffmpeg reads in the library's copy
        let row = try #require(try library.recording(recording.id))
        #expect(row.loudness == recording.loudness)
        await expectClose(row.loudness, try witness(row, in: library))
    }

    @Test("doctor lists clips not measured yet without touching them, still healthy; --repair measures them as ffmpeg does")
    func doctorRepair() async throws {
        // Given two clips saved without a measurement, as before loudness was measured
        let library = try await Fixture.library(clips: 2)
        let rows = try library.recordings()
        #expect(rows.allSatisfy { $0.loudness == nil })

        // When doctor only looks
        let report = try library.doctor.examine(repair: false, deleteUnplayable: false)
        // Then it lists both, calls the library healthy, and measured nothing
        #expect(Set(report.findings(.missingLoudness).compactMap(\.id)) == Set(rows.map(\.id)))
        #expect(report.isHealthy && report.measuredLoudness == 0)
        #expect(try library.recordings().allSatisfy { $0.loudness == nil })

        // When it repairs
        let repaired = try library.doctor.examine(repair: true, deleteUnplayable: false)
        // Then both are measured, as ffmpeg measures their files, and nothing is missing any more
        #expect(repaired.measuredLoudness == 2 && repaired.loudnessFailures.isEmpty)
        for row in try library.recordings() { await expectClose(row.loudness, try witness(row, in: library)) }
        let after = try library.doctor.examine(repair: false, deleteUnplayable: false)
        #expect(after.findings(.missingLoudness).isEmpty && after.isHealthy)
    }
}
