import CraveyCommands
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// Records the synthetic camera and a real PulseAudio null sink's monitor while a tone plays.
@Suite("Recording video", .temporaryFiles)
struct VideoRecordingCoordinatorTests {
    let library: RecordingLibrary

    init() throws {
        library = try RecordingLibrary(at: temporaryLibrary())
    }

    func coordinator(_ microphone: VirtualMicrophone, seconds: Double? = nil) -> Recorder {
        let options = RecordingOptions(source: microphone.monitor, maxDuration: seconds, camera: "test",
                                       width: 160, height: 120, frameRate: 25)
        return Recorder(into: library.store, coordinator: VideoRecordingCoordinator(options: options, camera: .test))
    }

    @Test("2 s from the test camera: 50 frames at 25 fps ending with 2 s of audio, frame rates reported, saved with a thumbnail and its loudness")
    func recordsAndSaves() async throws {
        // Given a tone playing into the virtual microphone
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own

        // When 2 s are recorded and saved
        let recorder = coordinator(microphone, seconds: 2)
        try await recorder.start()
        var events: [RecordingEvent] = []
        for await event in recorder.events { events.append(event) }
        let result = try await recorder.result()
        let recording = try await recorder.save(try RecordingMetadata(title: "Face"))

        // Then the audio decides the length, and the video has a frame for every 1/25 s of it
        #expect(result.sampleCount == 96_000 && result.duration == 2.0)
        #expect(result.frameCount == 50)
        #expect(result.capturedFrames >= 40, "the test camera delivers in real time: \(result.capturedFrames)")
        #expect(result.camera == .test && result.width == 160 && result.frameRate == 25)
        #expect(result.interruption == nil)
        #expect(events.contains { if case .frameRate(let rate) = $0 { abs(rate - 25) < 3 } else { false } },
                "frame rates: \(events.filter { if case .frameRate = $0 { true } else { false } })")
        #expect(events.contains { if case .started = $0 { true } else { false } })

        // And the saved clip is a video with its thumbnail and loudness, and the .partial is gone
        #expect(recording.type == .video && recording.filePath == "Recordings/video_\(result.id.description).mp4")
        let thumbnail = try #require(recording.thumbnailPath)
        #expect(FileManager.default.fileExists(atPath: library.url.appendingPathComponent(thumbnail).path))
        #expect(recording.loudness != nil)
        #expect(!FileManager.default.fileExists(atPath: result.fileURL.path))
        let info = try MediaProbe.info(of: .outside(library.fileURL(recording.filePath)))
        #expect(info.videoStream?.codecName == "h264" && info.audioStream?.codecName == "aac")
    }

    @Test("cancel deletes the file being written")
    func cancelDiscards() async throws {
        let microphone = try await VirtualMicrophone()
        let recorder = coordinator(microphone)
        try await recorder.start()
        #expect(FileManager.default.fileExists(atPath: recorder.partialURL.path))
        await recorder.discard()
        #expect(!FileManager.default.fileExists(atPath: recorder.partialURL.path))
    }

    @Test("a camera that cannot be opened is 'unavailable', names the device and offers audio; nothing is written")
    func missingCamera() async throws {
        let microphone = try await VirtualMicrophone()
        let options = RecordingOptions(source: microphone.monitor, camera: "/dev/video9")
        let recorder = Recorder(into: library.store, coordinator: VideoRecordingCoordinator(options: options, camera: .device("/dev/video9")))
        await #expect { try await recorder.start() } throws: { error in
            guard let error = error as? CraveyError else { return false }
            return error.kind == .unavailable && error.message.contains("/dev/video9") && Messages.text(for: error).contains("cravey record")
        }
        #expect(library.store.storedFiles().isEmpty)
    }
}
