import CraveyTestSupport
import Foundation
import SystemPackage
import Testing
@testable import CraveyKit

/// Every clip's waveform: measured once (from the capture, from the import's decoding, by a
/// repair or at first use), kept beside it, and gone with it.
@Suite("Waveforms of the library's clips", .temporaryFiles)
struct WaveformTests {
    /// Bursts at half, a tenth and nine tenths of full scale, each 0.5 s with 0.5 s of silence after.
    static let levels = [0.5, 0.1, 0.9]

    /// The lowest and highest sample of every 480 samples (10 ms at 48 kHz) of mono samples.
    func peaks(of samples: [Float]) -> [Waveform.Peak] {
        stride(from: 0, to: samples.count, by: 480).map { start in
            let run = samples[start..<min(start + 480, samples.count)]
            let scale = { (value: Float) in Int16(max(min((value * 32768).rounded(), 32767), -32768)) }
            return Waveform.Peak(min: scale(run.min()!), max: scale(run.max()!))
        }
    }

    /// Checks `waveform` against the bursts of ``levels``: 100 peaks a second at 48 kHz; in a
    /// burst (away from its edges by `margin` seconds) each peak reaches its level within
    /// `tolerance` of full scale, and between bursts each stays within `silence` of zero.
    func expectBursts(_ waveform: Waveform, tolerance: Double, silence: Double, margin: Double = 0.03,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(waveform.sampleRate == 48_000 && waveform.samplesPerPeak == 480, sourceLocation: sourceLocation)
        #expect(abs(waveform.peaks.count - 300) <= 3, "\(waveform.peaks.count) peaks", sourceLocation: sourceLocation)
        for (index, peak) in waveform.peaks.enumerated() {
            let time = Double(index) / 100, within = time.truncatingRemainder(dividingBy: 1)
            let burst = Int(time)
            guard burst < Self.levels.count else { continue }
            let (high, low) = (Double(peak.max) / 32768, Double(peak.min) / 32768)
            if within >= margin, within + 0.01 <= 0.5 - margin {
                #expect(abs(high - Self.levels[burst]) <= tolerance && abs(-low - Self.levels[burst]) <= tolerance,
                        "peak \(index) at \(time) s: \(low)...\(high), burst at \(Self.levels[burst])", sourceLocation: sourceLocation)
            } else if within >= 0.5 + margin, within + 0.01 <= 1 - margin {
                #expect(max(abs(high), abs(low)) <= silence, "peak \(index) at \(time) s: \(low)...\(high), in silence",
                        sourceLocation: sourceLocation)
            }
        }
    }

    /// The samples of a 16-bit PCM WAV, read from its bytes here (its `data` chunk, found by
    /// walking the RIFF chunks), as floats of full scale.
    func samples(ofWave url: URL) throws -> [Float] {
        let bytes = [UInt8](try Data(contentsOf: url))
        let word = { (at: Int) in Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        var chunk = 12
        while chunk + 8 <= bytes.count, bytes[chunk..<chunk + 4] != ArraySlice("data".utf8) {
            chunk += 8 + (word(chunk + 4) + 1) & ~1
        }
        try #require(chunk + 8 <= bytes.count, "no data chunk in \(url.path)")
        let start = chunk + 8, end = min(bytes.count, start + word(chunk + 4))
        return stride(from: start, to: end - 1, by: 2).map { Float(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)) / 32768 }
    }

    @Test("the peaks of a WAV are its samples' own lowest and highest of every 10 ms, exactly")
    func exactOnPCM() async throws {
        let wav = try await Fixture.toneBursts(Self.levels)
        let measured = try #require(try AudioAnalysis.measure(.outside(wav), loudness: false, waveform: true)?.waveform)
        #expect(measured.peaks == peaks(of: try samples(ofWave: wav)))
        expectBursts(measured, tolerance: 0.001, silence: 0)
    }

    @Test("doctor lists clips without a waveform (no fault) and --repair makes them, a damaged one again; waveforms of clips that are gone are reported and removed; a file cravey did not name is left alone")
    func doctor() async throws {
        // Given two clips saved as before waveforms were kept, one with a damaged waveform file,
        // the waveform of a clip that is gone, and a person's file with a waveform-like name
        let library = try await Fixture.library(clips: 3)
        let rows = try library.recordings()
        let damaged = library.url.appendingPathComponent(ClipFiles(id: rows[2].id, type: .audio).file(.waveform)!.path)
        try Data(repeating: 7, count: 30).write(to: damaged)
        let gone = ClipFiles(id: RecordingID(), type: .audio).file(.waveform)!.path
        try Waveform(sampleRate: 48_000, samplesPerPeak: 480, peaks: []).audiowaveformData()
            .write(to: library.url.appendingPathComponent(gone))
        let foreign = library.recordingsURL.appendingPathComponent("audio_\(rows[0].id.description).peaks.dat.mine")
        try Data("mine".utf8).write(to: foreign)

        // When doctor looks
        let report = try library.doctor.examine(repair: false, deleteUnplayable: false)
        // Then it lists the three clips, and the two files as problems; nothing is made yet
        #expect(Set(report.findings(.missingWaveform).compactMap(\.id)) == Set(rows.map(\.id)) && report.unmeasuredWaveforms == 3)
        #expect(report.findings(.orphanWaveform).compactMap(\.path) == [gone] && report.findings(.foreignFile).compactMap(\.path).contains { $0.hasSuffix(".peaks.dat.mine") })
        #expect(report.problems.contains("waveform of a clip that is gone: \(gone)"))
        #expect(rows.allSatisfy { library.analysis.storedWaveform(of: $0) == nil })

        // When it repairs
        let repaired = try library.doctor.examine(repair: true, deleteUnplayable: false)
        // Then each clip has its waveform (loudness and waveform from one decoding), the orphan
        // is gone, and the person's file is as it was
        #expect(repaired.measuredWaveforms == 3 && repaired.measuredLoudness == 3 && repaired.loudnessFailures.isEmpty)
        for row in rows {
            let waveform = try #require(library.analysis.storedWaveform(of: row))
            #expect(abs(waveform.duration - 0.5) < 0.03 && waveform.peaks.contains { $0.max > 3000 })
        }
        #expect(!FileManager.default.fileExists(atPath: library.url.appendingPathComponent(gone).path))
        #expect(try Data(contentsOf: foreign) == Data("mine".utf8))
        let after = try library.doctor.examine(repair: false, deleteUnplayable: false)
        #expect(after.findings(.missingWaveform).isEmpty && after.findings(.orphanWaveform).isEmpty)
    }

    @Test("a recording cut off by a power cut before its first sound, its waveform already written: one repair removes both, and doctor then finds nothing")
    func cutBeforeFirstSound() async throws {
        // Given an empty recording fragment with no row (the power was cut before its first
        // sound reached the disk) and the waveform of that clip (powertest, ci29)
        let library = try await Fixture.library(clips: 1)
        let clip = ClipFiles(id: RecordingID(), type: .audio)
        let fragment = library.fileURL(clip.media(.recording))
        try Data().write(to: fragment)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: fragment.path)
        let waveform = library.url.appendingPathComponent(clip.file(.waveform)!.path)
        try Waveform(sampleRate: 48_000, samplesPerPeak: 480, peaks: []).audiowaveformData().write(to: waveform)

        // When doctor repairs, once
        _ = try library.doctor.examine(repair: true, deleteUnplayable: false)

        // Then both are gone, and doctor finds nothing more
        #expect(!FileManager.default.fileExists(atPath: fragment.path))
        #expect(!FileManager.default.fileExists(atPath: waveform.path))
        let after = try library.doctor.examine(repair: false, deleteUnplayable: false)
        #expect(after.problems.isEmpty, "\(after.problems)")
    }

    @Test("the first use makes a missing waveform and keeps it; a silent video has none")
    func firstUse() async throws {
        let library = try await Fixture.library(clips: 1)
        let row = try #require(try library.recordings().first)
        #expect(library.analysis.storedWaveform(of: row) == nil)
        let made = try #require(try await library.analysis.waveform(of: row))
        #expect(library.analysis.storedWaveform(of: row) == made)

        let silent = try await Fixture.make("mp4", ["-f", "lavfi", "-i", "testsrc=duration=1:size=160x120:rate=25",
                                              "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        let video = try Importer.importFile(silent, into: library.store, metadata: try RecordingMetadata(title: "Silent"))
        #expect(try await library.analysis.waveform(of: video) == nil)
        #expect(!FileManager.default.fileExists(atPath: library.url.appendingPathComponent(
            ClipFiles(id: video.id, type: .video).file(.waveform)!.path).path))
        #expect(try library.doctor.examine(repair: false, deleteUnplayable: false).findings(.missingWaveform).isEmpty)
    }

    @Test("delete takes the waveform with the clip (and puts it back when the deletion fails); delete-all leaves none")
    func deletion() async throws {
        let library = try await Fixture.library(clips: 3)
        _ = try library.doctor.examine(repair: true, deleteUnplayable: false)
        let rows = try library.recordings()
        let waveform = { (row: Recording) in library.url.appendingPathComponent(ClipFiles(id: row.id, type: row.type).file(.waveform)!.path) }
        #expect(rows.allSatisfy { FileManager.default.fileExists(atPath: waveform($0).path) })

        // A deletion whose media cannot be removed (injected) keeps the clip whole, its waveform too
        library.store.files!.faults = StorageFaults(removal: { file throws(Errno) in
            if file.name.hasSuffix(".m4a") { throw .ioError }
        })
        #expect(throws: CraveyError.self) { try library.delete(rows[0].id) }
        #expect(FileManager.default.fileExists(atPath: waveform(rows[0]).path))
        library.store.files!.faults = StorageFaults()

        try library.delete(rows[0].id)
        #expect(!FileManager.default.fileExists(atPath: waveform(rows[0]).path))
        _ = try library.storage.deleteAll()
        #expect(library.store.storedFiles().isEmpty)
    }
}
