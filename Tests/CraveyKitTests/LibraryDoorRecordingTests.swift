import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// A recording through the door, from a real server (a tone played into a virtual microphone).
extension LibraryDoorTests {
    @Test("a recording saved through the door is one flow: record, save with its words, and it is in the library; discard leaves nothing")
    func recordSaveDiscard() async throws {
        // Given a tone playing into a virtual microphone
        let library = try RecordingLibrary(at: temporaryLibrary())
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own

        // When one recording is saved and another discarded
        let kept = try await library.record(RecordingOptions(source: microphone.monitor, maxDuration: 1))
        let recording = try await kept.save(try RecordingMetadata(title: "Kept", purpose: .milestone))
        let dropped = try await library.record(RecordingOptions(source: microphone.monitor))
        for await event in dropped.events {
            if case .level = event { break }  // it is capturing
        }
        await dropped.discard()

        // Then only the saved one is there, with its words, its exact length and its loudness
        #expect(try library.recordings().map(\.id) == [recording.id])
        #expect(recording.title == "Kept" && recording.purpose == .milestone && recording.duration == 1.0)
        #expect(recording.loudness != nil)
        #expect(library.store.storedFiles() == [ClipFiles(id: recording.id, type: .audio).file(.copy)!.path, recording.filePath,
                                                  ClipFiles(id: recording.id, type: .audio).file(.waveform)!.path])
    }
}
