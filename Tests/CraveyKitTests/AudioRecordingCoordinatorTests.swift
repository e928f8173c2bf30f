import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// Records from a real PulseAudio null sink's monitor while tones play into the sink.
@Suite("Recording from the microphone", .temporaryFiles)
struct AudioRecordingCoordinatorTests {
    let library: RecordingLibrary
    let folder: URL

    init() throws {
        folder = temporaryLibrary()
        library = try RecordingLibrary(at: folder)
    }

    /// A recorder of the microphone configuration, not started.
    func coordinator(_ options: RecordingOptions) -> Recorder {
        Recorder(into: library.store, coordinator: AudioRecordingCoordinator(options: options))
    }

    /// Records `seconds` of audio from `microphone` and collects every event.
    func record(_ seconds: Double, from microphone: VirtualMicrophone) async throws
        -> (RecordingResult, [RecordingEvent], Recorder) {
        let recorder = try await library.record(RecordingOptions(source: microphone.monitor, maxDuration: seconds))
        var events: [RecordingEvent] = []
        for await event in recorder.events { events.append(event) }
        return (try await recorder.result(), events, recorder)
    }

    @Test("a 440 Hz tone recorded for 2 s is a 2 s AAC .m4a at 440 Hz, with loud levels, saved in the library")
    func recordsTone() async throws {
        // Given a tone playing into the virtual microphone
        let microphone = try await VirtualMicrophone()
        let player = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(player) {} }  // its deinit stops it, on a thread of its own

        // When 2 s are recorded and saved
        let (result, events, recorder) = try await record(2, from: microphone)
        let recording = try await recorder.save(try RecordingMetadata(title: "Tone"))

        // Then the exact duration comes from the sample count
        #expect(result.sampleCount == 96_000)
        #expect(result.duration == 2.0)
        #expect(recording.filePath == "Recordings/audio_\(result.id.description).m4a")
        let url = library.fileURL(recording.filePath)
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(!FileManager.default.fileExists(atPath: result.fileURL.path), "the .partial file is gone")

        // ffprobe and the library's own probe agree: AAC in MP4, 2 s +/- 0.1 s
        let ffprobe = try await Witness.ffprobe(url)
        #expect(ffprobe.formatName.contains("mp4"))
        #expect(ffprobe.audioCodec == "aac")
        #expect(abs(ffprobe.duration - 2) <= 0.1)
        let info = try MediaProbe.info(of: .outside(url))
        #expect(info.formatName == ffprobe.formatName)
        #expect(info.audioStream?.codecName == "aac")
        #expect(info.audioStream?.sampleRate == 48_000)
        #expect(info.audioStream?.channels == 1)
        let duration = try MediaProbe.duration(of: .outside(url))
        #expect(abs(duration - 2) <= 0.1)
        #expect(abs(duration - ffprobe.duration) < 0.01)

        // The decoded audio is the tone
        let frequency = Witness.dominantFrequency(try await Witness.decodeAudio(url))
        #expect(abs(frequency - 440) <= 5, "dominant frequency \(frequency) Hz")

        // Levels: at least 10 a second, loud during the tone
        let levels = events.compactMap { if case .level(let level) = $0 { level } else { nil } }
        #expect(levels.count >= 20)
        #expect(levels.last?.elapsed == 2.0)
        #expect(levels.filter { $0.elapsed > 1 }.allSatisfy { $0.rms > -20 },
                "levels: \(levels.map(\.rms)); the tone's own player ran dry \(player.underruns) times")
        #expect(result.peak > -10)
        #expect(!events.contains(.silenceWarning(source: microphone.monitor)))

        // And the row is in the library
        #expect(try library.recordings().map(\.id) == [result.id])
    }

    @Test("silence reads below -60 dBFS and warns once, naming the source")
    func warnsOnSilence() async throws {
        let microphone = try await VirtualMicrophone()
        let (result, events, _) = try await record(2.5, from: microphone)
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
        let coordinator = self.coordinator(RecordingOptions(source: "no_such_source", maxDuration: 1))
        await #expect {
            try await coordinator.start()
        } throws: { error in
            let error = error as? CraveyError
            return error?.kind == .unavailable && error?.message.contains("no_such_source") == true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.recordingsURL.path) == ["Thumbnails"])
        // A failed start ends the recording: nothing waits for it forever.
        await #expect(throws: CraveyError.self) { try await coordinator.result() }
        await coordinator.discard()
    }

    @Test("recording from the default source reports that source by name, as .started does")
    func namesDefaultSource() async throws {
        // Given no source asked for: the server's default one (scripts/pulse sets virtual_mic.monitor)
        _ = TestSoundServer.address
        let coordinator = self.coordinator(RecordingOptions(maxDuration: 0.2))

        // When a short recording is made
        try await coordinator.start()
        var started: String?
        for await event in coordinator.events {
            if case .started(let source, _) = event { started = source }
        }
        let result = try await coordinator.result()
        await coordinator.discard()

        // Then the result names the source the audio came from, not "default"
        #expect(started != nil && started != "default")
        #expect(result.source == started)
    }

    @Test("an encoder that cannot open leaves nothing in Recordings/, although capture already ran")
    func encoderOpenFailureLeavesNothing() async throws {
        // Given a sample rate PulseAudio records but the AAC encoder refuses, so the file is
        // created before the encoder fails
        let microphone = try await VirtualMicrophone()
        let coordinator = self.coordinator(RecordingOptions(source: microphone.monitor, sampleRate: 12_345))

        // When the recording starts
        await #expect {
            try await coordinator.start()
        } throws: { error in
            // Then start() throws the writing error, naming the file
            (error as? CraveyError)?.message.contains(coordinator.partialURL.path) == true
        }

        // And nothing stays behind, and nothing waits for the recording forever
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.recordingsURL.path) == ["Thumbnails"])
        await #expect(throws: CraveyError.self) { try await coordinator.result() }
    }

    @Test("a partial path taken by a folder is 'cannotWrite'; the folder is left as it was, nothing else is written")
    func partialPathTaken() async throws {
        // Given a folder, with a file inside, where the recording's .partial file would go
        let microphone = try await VirtualMicrophone()
        let coordinator = self.coordinator(RecordingOptions(source: microphone.monitor))
        try FileManager.default.createDirectory(at: coordinator.partialURL, withIntermediateDirectories: false)
        let inside = coordinator.partialURL.appendingPathComponent("keep")
        try Data("mine".utf8).write(to: inside)

        // When the recording starts
        await #expect {
            try await coordinator.start()
        } throws: { error in
            // Then start() throws a write error (exit 73) naming the path
            let error = error as? CraveyError
            return error?.kind == .cannotWrite && error?.message.contains(coordinator.partialURL.path) == true
        }

        // And the folder and its file are untouched, and nothing else appeared
        let names = try FileManager.default.contentsOfDirectory(atPath: library.recordingsURL.path).sorted()
        #expect(names == [coordinator.partialURL.lastPathComponent, "Thumbnails"].sorted())
        #expect(try Data(contentsOf: inside) == Data("mine".utf8))
        await #expect(throws: CraveyError.self) { try await coordinator.result() }
    }

    @Test("cancel deletes the file being written")
    func cancelDiscards() async throws {
        let microphone = try await VirtualMicrophone()
        let coordinator = self.coordinator(RecordingOptions(source: microphone.monitor))
        try await coordinator.start()
        #expect(FileManager.default.fileExists(atPath: coordinator.partialURL.path))
        // Once audio is being recorded into it
        for await event in coordinator.events {
            if case .level(let level) = event, level.elapsed >= 0.5 { break }
        }
        await coordinator.discard()
        #expect(!FileManager.default.fileExists(atPath: coordinator.partialURL.path))
        #expect(try library.count() == 0)
    }
}
