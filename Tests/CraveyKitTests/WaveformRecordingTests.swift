import CraveyTestSupport
import Foundation
import SystemPackage
import Testing
@testable import CraveyKit

/// One clip's waveform recorded from a real server (a tone played into a virtual microphone),
/// imported and recovered.
extension WaveformTests {
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
}
