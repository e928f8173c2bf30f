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

    @Test("the peaks of a WAV are its samples' own lowest and highest of every 10 ms, exactly")
    func exactOnPCM() async throws {
        let wav = try await Fixture.toneBursts(Self.levels)
        let measured = try #require(try AudioAnalysis.measure(.outside(wav), loudness: false, waveform: true)?.waveform)
        #expect(measured.peaks == peaks(of: try await Witness.decodeFloat(["-i", wav.path])))
        expectBursts(measured, tolerance: 0.001, silence: 0)
    }

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

    @Test("recorded, imported and recovered, one clip has the same waveform: the capture's samples, and the decoding of its file")
    func sameWaveformEveryWay() async throws {
        // Given 2 s recorded of a tone that stops after about 1 s
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        let library = try await Fixture.library(clips: 0)
        let recorder = try await library.record(RecordingOptions(source: microphone.monitor, maxDuration: 2))
        for await event in recorder.events {
            if case .level(let level) = event, level.elapsed >= 1 { await tone.stop() }
        }
        let recorded = try await recorder.save(try RecordingMetadata(title: "Recorded"))
        let fromCapture = try #require(library.analysis.storedWaveform(of: recorded))
        #expect(fromCapture == recorder.waveform && fromCapture.peaks.count == 200)
        #expect(fromCapture.peaks.contains { $0.max > 3000 } && fromCapture.peaks.contains { $0.max < 100 }, "tone, then silence")

        // When its file is imported into another library, and registered by a repair in a third
        let file = try library.fileURL(of: recorded)
        let imported = try await Fixture.library(clips: 0)
        let fromImport = try #require(imported.analysis.storedWaveform(
            of: try Importer.importFile(file, into: imported.store, metadata: try RecordingMetadata(title: "Imported"))))
        let recovered = try await Fixture.library(clips: 0)
        try FileManager.default.copyItem(at: file, to: recovered.fileURL(ClipFiles(id: RecordingID(), type: .audio).media()))
        let repair = try recovered.doctor.examine(repair: true, deleteUnplayable: false)
        #expect(repair.repairs.contains { $0.hasPrefix("Registered") }, "\(repair.repairs)")
        let registered = try #require(try recovered.recordings().first)
        let fromRepair = try #require(recovered.analysis.storedWaveform(of: registered))

        // Then all three agree. The decoded file's peaks are the captured ones within 3% of full
        // scale, peak for peak, away from the tone's abrupt start and stop, which AAC spreads
        // over its 2048-sample window (an overshoot up to 50 ms around them); the tone stops at
        // the same peak, give or take one; the file's last AAC frame may add a peak or two of silence.
        #expect(fromImport == fromRepair)
        #expect((200...203).contains(fromImport.peaks.count), "\(fromImport.peaks.count) peaks")
        let (captured, decoded) = (fromCapture.peaks, Array(fromImport.peaks.prefix(200)))
        func stop(_ peaks: [Waveform.Peak]) -> Int { (peaks.lastIndex { $0.max >= 1000 } ?? -1) + 1 }
        let stopped = stop(captured)
        #expect((20...180).contains(stopped) && abs(stop(decoded) - stopped) <= 1, "stops at \(stopped) and \(stop(decoded))")
        for index in decoded.indices where index >= 5 && abs(index - stopped) > 5 {
            #expect(abs(Int(captured[index].max) - Int(decoded[index].max)) <= 1000
                    && abs(Int(captured[index].min) - Int(decoded[index].min)) <= 1000,
                    "peak \(index): captured \(captured[index]), decoded \(decoded[index])")
        }
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
