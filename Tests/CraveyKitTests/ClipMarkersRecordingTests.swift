@testable import CraveyCore
@testable import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Markers made while recording from a real server (a tone played into a virtual microphone).
extension ClipMarkersTests {
    @Test("the markers made while recording are saved with the clip, in its own transaction: those within it, in time order, each millisecond once (a label given later kept); one past its end is left out; the clip's copy holds them")
    func savedWithTheRecording() async throws {
        // Given a tone recorded for a second
        let library = try RecordingLibrary(at: temporaryLibrary())
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own
        let recorder = try await library.record(RecordingOptions(source: microphone.monitor, maxDuration: 1))

        // When it is saved with the markers made while it recorded, asked for once it has ended
        let asked = Locked(0)
        let saved = try await recorder.save(try RecordingMetadata(title: "Marked"), markers: {
            asked.withLock { $0 += 1 }
            return [marker(700), marker(200, "start"), marker(5_000, "past the end"), marker(700, "then")]
        })

        // Then the row the save wrote holds the markers within the clip, and so does the clip's copy
        #expect(asked.withLock { $0 } == 1)
        let expected = [marker(200, "start"), marker(700, "then")]
        #expect(saved.markers == expected)
        #expect(try library.recording(saved.id)?.markers == expected)
        let copy = try #require(library.store.record(of: ClipFiles(saved)))
        #expect(copy.recording.markers == expected)
    }
}
