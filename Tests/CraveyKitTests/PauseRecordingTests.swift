import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// Pausing a recording against a real PulseAudio null sink's monitor (and the synthetic camera):
/// what is paused is left out of the file, and nothing else.
@Suite("Pausing a recording", .temporaryFiles)
struct PauseRecordingTests {
    let library: RecordingLibrary

    init() throws {
        library = try RecordingLibrary(at: temporaryLibrary())
    }

    /// Records with `options` from a 440 Hz tone, pausing for 2 s of the microphone's blocks
    /// once `after` seconds are recorded; returns every event and the saved clip.
    func recordWithPause(_ options: RecordingOptions, after: Double, microphone: VirtualMicrophone) async throws
        -> (events: [RecordingEvent], recorder: Recorder, recording: Recording) {
        let recorder = try await library.record(options)
        var events: [RecordingEvent] = []
        var asked = false
        // The blocks read since the pause took effect (a level each, every `levelInterval`); nil
        // before it and after the resume.
        var blocksPaused: Int?
        let blocksFor2Seconds = Int((2 / options.levelInterval).rounded())
        for await event in recorder.events {
            events.append(event)
            switch event {
            case .level(let level) where !asked && level.elapsed >= after:
                asked = true
                recorder.pause()
            case .paused:
                blocksPaused = 0
            case .level where blocksPaused != nil:
                blocksPaused! += 1
                if blocksPaused == blocksFor2Seconds {
                    blocksPaused = nil
                    recorder.resume()
                }
            default:
                break
            }
        }
        return (events, recorder, try await recorder.save(try RecordingMetadata(title: "Paused")))
    }

    /// The seconds recorded when the pause took effect, from the `.paused` and `.resumed`
    /// events, which must come once each and agree.
    func pausedAt(_ events: [RecordingEvent], sourceLocation: SourceLocation = #_sourceLocation) throws -> Double {
        let paused = events.compactMap { if case .paused(let elapsed) = $0 { elapsed } else { nil } }
        let resumed = events.compactMap { if case .resumed(let elapsed) = $0 { elapsed } else { nil } }
        try #require(paused.count == 1 && resumed == paused, "paused \(paused), resumed \(resumed)", sourceLocation: sourceLocation)
        return paused[0]
    }

    @Test("2 s of tone, 2 s paused, 2 s of tone: a 4 s clip to the sample, whose tone goes on through the joint with no click and no gap")
    func pausesAudio() async throws {
        // Given a tone playing into the virtual microphone
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own

        // When 4 s are recorded with a 2 s pause after the first 2
        let (events, recorder, recording) = try await recordWithPause(
            RecordingOptions(source: microphone.monitor, maxDuration: 4), after: 2, microphone: microphone)

        // Then the events say where it paused, and levels went on meanwhile, the clock standing still
        let joint = try pausedAt(events)
        #expect(joint >= 2 && joint < 2.5, "paused at \(joint) s")
        let pausedIndex = try #require(events.firstIndex(of: .paused(elapsed: joint)))
        let resumedIndex = try #require(events.firstIndex(of: .resumed(elapsed: joint)))
        let whilePaused = events[pausedIndex..<resumedIndex].compactMap { if case .level(let level) = $0 { level } else { nil } }
        #expect(whilePaused.count >= 20 && whilePaused.allSatisfy { $0.elapsed == joint }, "\(whilePaused.count) levels while paused")

        // And the clip is 4 s to the sample; its file, what was recorded and the AAC encoder's
        // padding of its last frame, and no more
        let result = try await recorder.result()
        #expect(result.sampleCount == 192_000 && recording.duration == 4.0)
        let samples = try await Witness.decodeFloat(["-i", try library.fileURL(of: recording).path])
        #expect((192_000..<193_024).contains(samples.count), "\(samples.count) samples decoded")

        // And the tone goes on through the joint: every 10 ms as loud as the others (no gap),
        // no step between samples steeper than the tone's own (no click), still 440 Hz
        let rms = stride(from: 2_400, to: 189_600, by: 480).map { start in
            (samples[start..<start + 480].reduce(0) { $0 + $1 * $1 } / 480).squareRoot()
        }
        let level = rms.sorted()[rms.count / 2]
        #expect(rms.allSatisfy { abs($0 / level - 1) < 0.1 }, "10 ms levels from \(rms.min()!) to \(rms.max()!), median \(level)")
        let amplitude: Float = level * Float(2.0.squareRoot())
        let steepest: Float = Float(2 * Double.pi * 440 / 48_000) * amplitude
        let around = Int(joint * 48_000)
        let steps = (around - 2_400..<around + 2_400).map { abs(samples[$0 + 1] - samples[$0]) }
        #expect(steps.max()! <= steepest * 1.3, "largest step at the joint \(steps.max()!), the tone's \(steepest)")
        #expect(abs(Witness.dominantFrequency(try await Witness.decodeAudio(try library.fileURL(of: recording))) - 440) <= 5)

        // And its waveform is the captured one: 4 s at 100 peaks a second
        #expect(library.analysis.storedWaveform(of: recording) == recorder.waveform && recorder.waveform.peaks.count == 400)
    }

    @Test("a video paused for 2 s leaves those 2 s out of both tracks, in step: the picture jumps at the sound's joint")
    func pausesVideo() async throws {
        // Given a tone playing into the virtual microphone, and the test camera at 10 fps
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own
        let options = RecordingOptions(source: microphone.monitor, maxDuration: 4, camera: "test",
                                       width: 160, height: 120, frameRate: 10)

        // When 4 s are recorded with a 2 s pause after the first 1.5
        let (events, recorder, recording) = try await recordWithPause(options, after: 1.5, microphone: microphone)
        let joint = try pausedAt(events)

        // Then both tracks last the 4 s recorded: 40 frames, and the audio's 4 s
        let result = try await recorder.result()
        #expect(result.sampleCount == 192_000 && result.frameCount == 40)
        let url = try library.fileURL(of: recording)
        let streams = try await Witness.streams(url)
        let video = try #require(streams.first { $0.kind == "video" }), audio = try #require(streams.first { $0.kind == "audio" })
        #expect(abs(video.end - 4) <= 0.1 && abs(audio.end - 4) <= 0.03, "video ends at \(video.end) s, audio at \(audio.end) s")

        // And the pictures are the camera's, one after another, but for one jump of the 2 s
        // paused, at the frame where the sound was paused: the camera's pattern, frame by frame
        let frames = try await gray(["-i", url.path])
        let pattern = try await gray(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10", "-t", "15"])
        let shown = frames.map { frame in nearest(frame, in: pattern) }
        let steps = zip(shown.dropFirst(), shown).map { $0 - $1 }
        let jumps = steps.enumerated().filter { $0.element > 3 }
        try #require(jumps.count == 1, "the camera's frames shown: \(shown)")
        #expect(abs(jumps[0].element - 21) <= 3, "jumped \(jumps[0].element) frames: \(shown)")
        #expect(abs(Double(jumps[0].offset + 1) - joint * 10) <= 1.5, "jumped after frame \(jumps[0].offset), sound paused at \(joint) s")
        #expect(steps.allSatisfy { $0 >= 0 }, "\(shown)")
    }

    /// The frames of a 160x120 video in gray, one array of pixels each.
    func gray(_ input: [String]) async throws -> [[UInt8]] {
        let raw = temporaryFolder().appendingPathComponent("frames-\(UUID().uuidString).gray")
        let result = try await run("ffmpeg", ["-v", "error"] + input + ["-f", "rawvideo", "-pix_fmt", "gray", raw.path])
        try #require(result.status == 0, "\(result.error)")
        let bytes = [UInt8](try Data(contentsOf: raw))
        return stride(from: 0, to: bytes.count - 19_199, by: 19_200).map { Array(bytes[$0..<$0 + 19_200]) }
    }

    /// The index of the picture of `pattern` most like `frame` (every 7th pixel compared).
    func nearest(_ frame: [UInt8], in pattern: [[UInt8]]) -> Int {
        let differences = pattern.map { picture in
            stride(from: 0, to: frame.count, by: 7).reduce(0) { $0 + abs(Int(frame[$1]) - Int(picture[$1])) }
        }
        return differences.indices.min { differences[$0] < differences[$1] }!
    }
}
