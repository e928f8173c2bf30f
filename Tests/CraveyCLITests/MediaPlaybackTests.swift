import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Every fixture in `Media/` that imports also plays: its sound (all of them hold a 440 Hz tone)
/// comes out of the sink for the clip's length, and a clip without sound plays its length in
/// silence and completes.
extension PlayCommandTests {
    @Test("every playable Media/ fixture, imported, plays to the end: its tone for its length, or its length in silence",
          arguments: MediaFixture.playable)
    func mediaFixturePlays(_ fixture: MediaFixture) async throws {
        // Given the fixture imported into a library
        let sink = try await VirtualMicrophone()
        let (library, ids) = try await library([fixture.url])
        let recording = try library.recording(matching: try #require(ids.first))
        let hasSound = try await Witness.ffprobe(library.fileURL(recording.filePath)).audioCodec != nil
        let capture = try await SinkCapture.start(sink: sink.sinkName)

        // When it is played
        let result = try await Cravey.run(["play", ids[0], "--library", library.url.path,
                                           "--device", sink.sinkName, "--no-count", "--json"])
        let samples = try await offPool { try capture.stop() }

        // Then it completed at its duration, and the sink heard its tone for as long, or nothing
        #expect(result.status == 0, "\(result.error)")
        let last = try #require(try jsonLines(result.output).dropLast().last)
        #expect(last["state"] as? String == "completed" && last["position"] as? Double == recording.duration, "\(last)")
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        if hasSound {
            let heard = sounding.reduce(0) { $0 + $1.duration }
            #expect(sounding.allSatisfy { $0.frequency == 440 } && abs(heard - recording.duration) <= 0.3,
                    "\(sounding) for \(recording.duration) s")
        } else {
            #expect(sounding.isEmpty, "\(sounding)")
        }
    }
}
