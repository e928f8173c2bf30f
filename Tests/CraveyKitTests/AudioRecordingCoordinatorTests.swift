import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// Records from a real PulseAudio null sink's monitor while tones play into the sink.
@Suite("Recording from the microphone")
struct AudioRecordingCoordinatorTests {
    let library: RecordingLibrary
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-test-\(UUID().uuidString)")
        library = try RecordingLibrary(at: folder)
    }

    /// Records `seconds` of audio from `microphone` and collects every event.
    func record(_ seconds: Double, from microphone: VirtualMicrophone) async throws
        -> (AudioRecordingResult, [RecordingEvent]) {
        let coordinator = AudioRecordingCoordinator(
            storage: library.storage, options: AudioRecordingOptions(source: microphone.monitor, maxDuration: seconds))
        try await coordinator.start()
        var events: [RecordingEvent] = []
        for await event in coordinator.events { events.append(event) }
        return (try await coordinator.result(), events)
    }

    @Test("a 440 Hz tone recorded for 2 s is a 2 s AAC .m4a at 440 Hz, with loud levels, saved in the library")
    func recordsTone() async throws {
        // Given a tone playing into the virtual microphone
        let microphone = try VirtualMicrophone()
        let player = try await microphone.play(frequency: 440, seconds: 30)
        defer { player.terminate() }

        // When 2 s are recorded and saved
        let (result, events) = try await record(2, from: microphone)
        let recording = try SaveRecordingUseCase(library: library)
            .execute(result, metadata: try RecordingMetadata(title: "Tone"))

        // Then the exact duration comes from the sample count
        #expect(result.sampleCount == 96_000)
        #expect(result.duration == 2.0)
        #expect(recording.filePath == "Recordings/audio_\(result.id.uuidString.lowercased()).m4a")
        let url = try library.storage.absoluteURL(for: recording.filePath)
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(!FileManager.default.fileExists(atPath: result.fileURL.path), "the .partial file is gone")

        // ffprobe and the library's own probe agree: AAC in MP4, 2 s +/- 0.1 s
        let ffprobe = try Witness.ffprobe(url)
        #expect(ffprobe.formatName.contains("mp4"))
        #expect(ffprobe.audioCodec == "aac")
        #expect(abs(ffprobe.duration - 2) <= 0.1)
        let info = try library.storage.probe(url)
        #expect(info.formatName == ffprobe.formatName)
        #expect(info.audioStream?.codecName == "aac")
        #expect(info.audioStream?.sampleRate == 48_000)
        #expect(info.audioStream?.channels == 1)
        let duration = try library.storage.duration(of: url)
        #expect(abs(duration - 2) <= 0.1)
        #expect(abs(duration - ffprobe.duration) < 0.01)

        // The decoded audio is the tone
        let frequency = Witness.dominantFrequency(try Witness.decodeAudio(url))
        #expect(abs(frequency - 440) <= 5, "dominant frequency \(frequency) Hz")

        // Levels: at least 10 a second, loud during the tone
        let levels = events.compactMap { if case .level(let level) = $0 { level } else { nil } }
        #expect(levels.count >= 20)
        #expect(levels.last?.elapsed == 2.0)
        #expect(levels.filter { $0.elapsed > 1 }.allSatisfy { $0.rms > -20 }, "levels: \(levels.map(\.rms))")
        #expect(result.peak > -10)
        #expect(!events.contains(.silenceWarning(source: microphone.monitor)))

        // And the row is in the library
        #expect(try library.repository.fetchAll().map(\.id) == [result.id])
    }

    @Test("silence reads below -60 dBFS and warns once, naming the source")
    func warnsOnSilence() async throws {
        let microphone = try VirtualMicrophone()
        let (result, events) = try await record(2.5, from: microphone)
        let levels = events.compactMap { if case .level(let level) = $0 { level } else { nil } }
        #expect(!levels.isEmpty)
        #expect(levels.allSatisfy { $0.rms < -60 && $0.peak < -60 })
        let warnings = events.filter { if case .silenceWarning = $0 { true } else { false } }
        #expect(warnings == [.silenceWarning(source: microphone.monitor)])
        #expect(result.duration == 2.5)
    }

    @Test("an unknown source is 'unavailable' and names the source; nothing is written")
    func unknownSource() async throws {
        _ = TestSoundServer.address
        let coordinator = AudioRecordingCoordinator(
            storage: library.storage, options: AudioRecordingOptions(source: "no_such_source", maxDuration: 1))
        await #expect {
            try await coordinator.start()
        } throws: { error in
            let error = error as? CraveyError
            return error?.kind == .unavailable && error?.message.contains("no_such_source") == true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.storage.recordingsURL.path) == ["Thumbnails"])
        // A failed start ends the recording: nothing waits for it forever.
        await #expect(throws: CraveyError.self) { try await coordinator.result() }
        await coordinator.cancel()
    }

    @Test("cancel deletes the file being written")
    func cancelDiscards() async throws {
        let microphone = try VirtualMicrophone()
        let coordinator = AudioRecordingCoordinator(
            storage: library.storage, options: AudioRecordingOptions(source: microphone.monitor))
        try await coordinator.start()
        #expect(FileManager.default.fileExists(atPath: coordinator.partialURL.path))
        try await Task.sleep(for: .milliseconds(500))
        await coordinator.cancel()
        #expect(!FileManager.default.fileExists(atPath: coordinator.partialURL.path))
        #expect(try library.repository.count() == 0)
    }
}
