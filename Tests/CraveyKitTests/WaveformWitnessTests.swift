import CraveyTestSupport
import Foundation
import SystemPackage
import Testing
@testable import CraveyKit

/// An import's waveform against the library's file as ffmpeg decodes it.
extension WaveformTests {
    @Test("an import is saved with its waveform, made in the decoding that measures its loudness: AAC bursts within 2% of their levels at 100 peaks a second, private and durable beside the clip")
    func importsWithWaveform() async throws {
        // Given tone bursts in AAC, imported by a copy of their stream
        let library = try await Fixture.library(clips: 0)
        let source = try await Fixture.toneBursts(Self.levels, ext: "m4a", codec: ["-c:a", "aac", "-b:a", "96k"])
        let recording = try Importer.importFile(source, into: library.store, metadata: try RecordingMetadata(title: "Bursts"))

        // Then its waveform is beside it, mode 0600, audiowaveform's binary format, and shows the bursts
        let path = library.url.appendingPathComponent(ClipFiles(id: recording.id, type: .audio).file(.waveform)!.path)
        #expect(path.lastPathComponent == "audio_\(recording.id.description).peaks.dat")
        #expect(try FileManager.default.attributesOfItem(atPath: path.path)[.posixPermissions] as? Int == 0o600)
        let stored = try #require(library.analysis.storedWaveform(of: recording))
        #expect(try Data(contentsOf: path) == stored.audiowaveformData())
        expectBursts(stored, tolerance: 0.02, silence: 0.005)
        // And it is the waveform of the library's file as ffmpeg decodes it
        let decoded = peaks(of: try await Witness.decodeFloat(["-i", try library.fileURL(of: recording).path]))
        #expect(zip(stored.peaks, decoded).allSatisfy { abs(Int($0.min) - Int($1.min)) <= 2 && abs(Int($0.max) - Int($1.max)) <= 2 })
        #expect(recording.loudness != nil)
    }
}
