import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey record --video` with the synthetic camera and a tone in a virtual microphone, checked
/// with ffprobe and ffmpeg as witnesses.
@Suite("cravey record --video", .temporaryFiles)
struct VideoRecordCommandTests {
    let library = temporaryLibrary()

    @Test("3 s from the test camera with a 440 Hz tone: H.264 yuv420p + AAC in MP4, 3 s at 30 fps, the tone, listed with a 320 px thumbnail")
    func recordsTestCamera() async throws {
        // Given a tone playing into the virtual microphone
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own

        // When 3 s of video are recorded from the test camera
        let result = try await Cravey.run(["record", "--video", "--camera", "test", "--size", "320x240",
                                           "--seconds", "3", "--library", library.path,
                                           "--device", microphone.monitor, "--title", "Face", "--json"])

        // Then the record is printed, a video with its file and thumbnail
        #expect(result.status == 0, "\(result.error)")
        let printed = try Recording.jsonDecoder().decode(Recording.self, from: Data(result.output.utf8))
        let id = printed.id.description
        #expect(printed.type == .video && printed.title == "Face")
        #expect(printed.filePath == "Recordings/video_\(id).mp4")
        #expect(printed.thumbnailPath == "Recordings/Thumbnails/video_\(id).jpg")
        #expect(abs(printed.duration - 3) <= 0.2)
        #expect(result.error.contains("fps"), "the frames are reported: \(result.error)")

        // ffprobe sees H.264 in yuv420p at 30 fps and AAC, in an MP4 of 3 s
        let file = library.appendingPathComponent(printed.filePath)
        #expect(try await Witness.ffprobe(file).formatName.contains("mp4"))
        let streams = try await Witness.streams(file)
        let video = try #require(streams.first { $0.kind == "video" })
        let audio = try #require(streams.first { $0.kind == "audio" })
        #expect(video.codec == "h264" && video.pixelFormat == "yuv420p" && video.width == 320 && video.height == 240)
        #expect(abs((video.frameRate ?? 0) - 30) <= 1, "frame rate \(String(describing: video.frameRate))")
        #expect(abs(video.duration - 3) <= 0.2 && abs(audio.duration - 3) <= 0.2, "\(video.duration) s, \(audio.duration) s")
        #expect(audio.codec == "aac")
        // At a constant rate from 0: frame n shows at n/30 s, every frame for 1/30 s
        let packets = try await run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                          "packet=pts_time,duration_time", "-of", "csv=p=0", file.path])
        let times = packets.output.split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
            .filter { $0.count == 2 }.sorted { $0[0] < $1[0] }
        #expect(times.count == 90)
        for (frame, time) in times.enumerated() where abs(time[0] - Double(frame) / 30) > 0.001 || abs(time[1] - 1.0 / 30) > 0.001 {
            Issue.record("frame \(frame) shows at \(time[0]) s for \(time[1]) s")
            break
        }
        let frequency = Witness.dominantFrequency(try await Witness.decodeAudio(file))
        #expect(abs(frequency - 440) <= 5, "dominant frequency \(frequency) Hz")

        // And `list --json` has the row, whose thumbnail is a 320 px JPEG that is not black
        let rows = try await listed(library)
        #expect(rows.map(\.id) == [printed.id])
        let thumbnail = library.appendingPathComponent(try #require(rows.first?.thumbnailPath))
        let picture = try await Fixture.brightness(of: thumbnail)
        #expect(picture.width == 320 && picture.height == 240)
        #expect(picture.mean > 40, "mean brightness \(picture.mean)")
        let codec = try await run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", thumbnail.path])
        #expect(codec.output.trimmingCharacters(in: .whitespacesAndNewlines) == "mjpeg")
        #expect(try partials(in: library).isEmpty)
    }

    @Test("kill -9 after 2 s leaves a playable fragmented MP4 that `doctor --repair` registers as a video")
    func killedVideoIsRecovered() async throws {
        // Given a video recording with a tone, killed after 2 s of it reached the disk
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own
        let process = try Cravey.start(["record", "--video", "--camera", "test", "--size", "320x240",
                                        "--library", library.path, "--device", microphone.monitor])
        try await waitForAudio(in: library, seconds: 2)
        kill(process.processIdentifier, SIGKILL)
        await exit(of: process)

        // Then the partial file plays: both streams, about 2 s of each
        let partial = try #require(try partials(in: library).first)
        #expect(partial.lastPathComponent.hasPrefix("video_") && partial.lastPathComponent.hasSuffix(".mp4.partial"))
        let streams = try await Witness.streams(partial)
        #expect(streams.map(\.codec).sorted() == ["aac", "h264"])
        #expect(streams.allSatisfy { $0.duration >= 1 }, "\(streams.map(\.duration))")
        let decoded = try await run("ffmpeg", ["-v", "error", "-i", partial.path, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.error.isEmpty, "\(decoded.error)")

        // When doctor repairs the library
        let repair = try await Cravey.run(["doctor", "--repair", "--library", library.path])
        #expect(repair.status == 0, "\(repair.error)")

        // Then the clip is a recovered video with its thumbnail, and nothing is left to repair
        let row = try #require(try await listed(library).first)
        #expect(row.type == .video && row.title.hasPrefix("Recovered "))
        #expect(row.filePath.hasSuffix(".mp4") && row.duration >= 1)
        #expect(row.thumbnailPath != nil)
        #expect(try partials(in: library).isEmpty)
        let again = try await Cravey.run(["doctor", "--library", library.path])
        #expect(again.status == 0, "\(again.output)\(again.error)")
    }

    @Test("SIGTERM is a clean stop: exit 0, the video is saved as a normal MP4 whose tracks end together")
    func terminateSaves() async throws {
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own
        let process = try Cravey.start(["record", "--video", "--camera", "test", "--size", "160x120",
                                        "--library", library.path, "--device", microphone.monitor])
        try await waitForAudio(in: library, seconds: 1.5)
        kill(process.processIdentifier, SIGTERM)
        await exit(of: process)
        #expect(process.terminationStatus == 0)
        let row = try #require(try await listed(library).first)
        #expect(row.type == .video && row.duration > 1 && row.thumbnailPath != nil)
        let file = library.appendingPathComponent(row.filePath)
        let streams = try await Witness.streams(file)
        #expect(streams.count == 2 && abs(streams[0].end - streams[1].end) <= 0.04, "\(streams)")
        // A normal MP4, no longer fragmented: no fragment (moof), the index (moov) before the media (mdat).
        let bytes = try Data(contentsOf: file)
        #expect(bytes.range(of: Data("moof".utf8)) == nil)
        let moov = try #require(bytes.range(of: Data("moov".utf8)))
        let mdat = try #require(bytes.range(of: Data("mdat".utf8)))
        #expect(moov.lowerBound < mdat.lowerBound)
        #expect(try partials(in: library).isEmpty)
    }
}
