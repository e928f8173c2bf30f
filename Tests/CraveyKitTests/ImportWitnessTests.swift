import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// Imports whose media ffprobe and ffmpeg read back as independent witnesses: codecs, channels,
/// durations and tones. The import's own logic is tested in process in ImportTests.swift.
extension ImportTests {
    @Test("AAC in .m4a keeps its stream (a copy), with the right duration")
    func copiesAAC() async throws {
        let source = try await Fixture.audio(seconds: 3)
        let recording = try importing(source)
        #expect(recording.type == .audio && recording.filePath.hasSuffix(".m4a"))
        let imported = try await Witness.ffprobe(try file(recording))
        #expect(imported.audioCodec == "aac")
        #expect(abs(imported.duration - (try await Witness.ffprobe(source).duration)) < 0.05)
        #expect(abs(recording.duration - 3) < 0.1)
        #expect(FileManager.default.fileExists(atPath: source.path), "the original stays where it was")
    }

    @Test("WAV, MP3, Ogg Vorbis, Ogg Opus and FLAC are transcoded to AAC .m4a; the 440 Hz tone survives",
          arguments: ["tone.wav", "tone.mp3", "tone.ogg", "tone.opus", "tone.flac"])
    func transcodesAudio(name: String) async throws {
        let source = MediaFixture.named(name).url
        let recording = try importing(source)
        let url = try file(recording)
        let probe = try await Witness.ffprobe(url)
        #expect(recording.type == .audio && probe.audioCodec == "aac")
        #expect(abs(probe.duration - 2.5) < 0.1 && abs(recording.duration - 2.5) < 0.1)
        let info = try MediaProbe.info(of: .outside(url))
        // Its channels are kept: the WAV is stereo, the others mono.
        let channels = try await Witness.ffprobeChannels(source)
        #expect(info.audioStream?.sampleRate == 48_000 && info.audioStream?.channels == channels)
        #expect(abs(Witness.dominantFrequency(try await Witness.decodeAudio(url)) - 440) <= 5)
    }

    @Test("a stereo source stays stereo, more channels become stereo: Ogg Vorbis, Ogg Opus, 5.1 FLAC, 5.1 AAC in MP4 (transcoded, not copied)",
          arguments: [("ogg", ["-ac", "2", "-c:a", "libvorbis"]), ("opus", ["-ac", "2", "-c:a", "libopus"]),
                      ("flac", ["-ac", "6", "-c:a", "flac"]), ("m4a", ["-ac", "6", "-c:a", "aac"])])
    func keepsStereo(ext: String, codec: [String]) async throws {
        // Given a source whose left and right differ (440 Hz on the left, 660 Hz on the right)
        let source = try await Fixture.make(ext, ["-f", "lavfi", "-i", "aevalsrc=0.4*sin(2*PI*440*t)|0.4*sin(2*PI*660*t):s=48000:d=1.5"] + codec)
        let recording = try importing(source)
        let url = try file(recording)
        // Then the library's copy is stereo AAC, and its channels still differ
        let (channels, codec) = (try await Witness.ffprobeChannels(url), try await Witness.ffprobe(url).audioCodec)
        #expect(channels == 2 && codec == "aac")
        if ext != "flac" && ext != "m4a" {
            #expect(abs(Witness.dominantFrequency(try await Witness.decodeFloat(["-i", url.path], ["-af", "pan=mono|c0=c0", "-ar", "8000"])) - 440) <= 5)
            #expect(abs(Witness.dominantFrequency(try await Witness.decodeFloat(["-i", url.path], ["-af", "pan=mono|c0=c1", "-ar", "8000"])) - 660) <= 5)
        }
    }

    @Test("MPEG-4 Part 2 video with MP3 in .avi is transcoded to H.264/AAC .mp4, rotation kept")
    func transcodesVideo() async throws {
        let source = MediaFixture.named("mpeg4.avi").url
        let recording = try importing(source)
        let info = try MediaProbe.info(of: .outside(try file(recording)))
        #expect(info.videoStream?.codecName == "h264" && info.audioStream?.codecName == "aac")
        let sourceInfo = try MediaProbe.info(of: .outside(source))
        #expect(sourceInfo.videoStream?.codecName == "mpeg4" && sourceInfo.audioStream?.codecName == "mp3")
        #expect(info.videoStream?.width == sourceInfo.videoStream?.width && info.videoStream?.height == sourceInfo.videoStream?.height)
        // The last frame lasts its 1/25 s too, as in the source (which starts one frame late).
        let witness = try await run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration",
                                          "-of", "csv=p=0", source.path])
        let sourceVideo = try #require(Double(witness.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let videoDuration = try #require(info.videoStream?.duration)
        #expect(abs(videoDuration - sourceVideo) < 0.005, "video lasts \(videoDuration) s, \(sourceVideo) s in the source")
        #expect(abs(recording.duration - 2) < 0.15)
        #expect(recording.thumbnailPath != nil)

        let rotated = try await Fixture.make("mov", ["-i", try await Fixture.video(seconds: 1).path, "-c:v", "mjpeg", "-c:a", "copy",
                                               "-metadata:s:v:0", "rotate=90"])
        let turned = try importing(rotated)
        #expect(try MediaProbe.info(of: .outside(try file(turned))).videoStream?.rotation
                == (try MediaProbe.info(of: .outside(rotated))).videoStream?.rotation)
    }

    @Test("elementary video streams without timestamps import at their length and frame rate", arguments: [
        ("mpg", 30, 24, ["-c:v", "mpeg1video", "-f", "mpeg1video"]),
        ("h264", 25, 50, ["-c:v", "libx264", "-f", "h264"]),
        ("m2v", 25, 50, ["-c:v", "mpeg2video", "-f", "mpeg2video"]),
    ])
    func timesElementaryStreams(ext: String, rate: Int, frames: Int, codec: [String]) async throws {
        // Given a bare video stream: no container, so no (or hardly any) timestamps
        let seconds = Double(frames) / Double(rate)
        let source = try await Fixture.make(ext, ["-f", "lavfi", "-i", "testsrc=duration=\(seconds):size=320x240:rate=\(rate)"] + codec)

        // When it is imported
        let recording = try importing(source)

        // Then it lasts its frames at its rate, one frame after another
        let witness = try await run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                          "stream=nb_read_frames,r_frame_rate,duration", "-of", "default=nw=1",
                                          try file(recording).path])
        var fields: [String: String] = [:]
        for line in witness.output.split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        let frame = 1 / Double(rate)
        let videoDuration = try #require(Double(fields["duration"] ?? ""), "\(witness.output)")
        #expect(abs(videoDuration - seconds) <= frame + 0.001, "video lasts \(videoDuration) s, not \(seconds) s")
        #expect(abs((try await Witness.ffprobe(try file(recording))).duration - seconds) <= frame + 0.001)
        #expect(abs(recording.duration - seconds) <= frame + 0.001, "recorded as \(recording.duration) s")
        #expect(abs((Int(fields["nb_read_frames"] ?? "") ?? 0) - frames) <= 1, "\(witness.output)")
        #expect(fields["r_frame_rate"] == "\(rate)/1", "\(witness.output)")
    }

    @Test("audio whose timestamps go back is re-timed by its samples from its first timestamp: the clip keeps the source's length, both tracks alike")
    func retimesAudioWhoseTimestampsGoBack() async throws {
        // Given: Matroska whose 5.1 AAC holds 5.9 s of samples, but on timestamps that jump back
        // by 2.27 s, so that ffprobe (and ffmpeg) call the file 3.6 s long
        let source = MediaFixture.named("audio-timestamps-go-back.mkv").url
        let expected = try await Witness.ffprobe(source).duration
        #expect(abs(expected - 3.6) < 0.1, "the fixture is \(expected) s for ffprobe")

        // When it is imported
        let recording = try importing(source)

        // Then the clip lasts what the source does, and its audio as long as its video
        let tolerance = max(0.15, expected * 0.02)
        #expect(abs(recording.duration - expected) <= tolerance, "stored as \(recording.duration) s, the source is \(expected) s")
        let url = try file(recording)
        #expect(abs((try await Witness.ffprobe(url)).duration - expected) <= tolerance)
        let info = try MediaProbe.info(of: .outside(url))
        let video = try #require(info.videoStream?.duration), audio = try #require(info.audioStream?.duration)
        #expect(abs(video - audio) <= 0.1, "video \(video) s, audio \(audio) s")
        #expect(abs(Witness.dominantFrequency(try await Witness.decodeAudio(url)) - 440) <= 5)
    }

    @Test("a WAV of a few samples (5 channels of 9 at 8 kHz, as scipy's own test file; 1 sample; 3 stereo at 44.1 kHz) imports as the clip it is, as long as it is",
          arguments: [(5, 9, 8_000, 1), (1, 10, 8_000, 2), (1, 1, 8_000, 2), (2, 3, 44_100, 2), (1, 1, 48_000, 2)])
    func importsTinyWaves(channels: Int, frames: Int, rate: Int, bytesPerSample: Int) async throws {
        // Given a real WAV of a few samples, which ffmpeg decodes
        let source = temporaryFolder().appendingPathComponent("tiny-\(channels)-\(frames)-\(rate).wav")
        try Self.wave(channels: channels, frames: frames, rate: rate, bytesPerSample: bytesPerSample).write(to: source)
        let original = try await Witness.ffprobe(source)
        #expect(original.audioCodec?.hasPrefix("pcm_") == true)

        // When it is imported, then it is an audio clip of AAC as short as it is
        let recording = try importing(source)
        #expect(recording.type == .audio)
        let stored = try await Witness.ffprobe(try file(recording))
        #expect(stored.audioCodec == "aac")
        #expect(recording.duration >= 0 && recording.duration < 0.05, "\(recording.duration) s")
    }

    @Test("a faststart MP4 cut at half opens and decodes, but is refused as cut short, naming the times")
    func rejectsCutShort() async throws {
        let whole = try await Fixture.video(seconds: 4, extra: ["-movflags", "+faststart"])
        let bytes = try Data(contentsOf: whole)
        let half = temporaryFolder().appendingPathComponent("\(UUID().uuidString)-half.mp4")
        try bytes.prefix(bytes.count / 2).write(to: half)
        let decodes = try await run("ffmpeg", ["-v", "error", "-i", half.path, "-f", "null", "-"])
        #expect(decodes.status == 0, "the witness plays what is there")

        let error = try #require(throws: CraveyError.self) { try importing(half) }
        #expect(error.kind == .undecodableMedia)
        #expect(error.message.contains("cut short") && error.message.contains("4.0 s"), "\(error.message)")
        #expect(try library.count() == 0 && library.store.storedFiles().isEmpty)
        _ = try importing(whole)
        #expect(try library.count() == 1, "the complete file imports")
    }
}
