import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

@Suite("Video thumbnails", .temporaryFiles)
struct ThumbnailTests {
    let library: RecordingLibrary

    init() async throws {
        library = try await Fixture.library(clips: 0)
    }

    func thumbnail(of video: URL) throws -> URL {
        let jpeg = try Thumbnailer.jpeg(forVideoAt: .outside(video))
        let relative = try library.store.write { tx in try tx.store(jpeg, as: .thumbnail, of: ClipFiles(id: RecordingID(), type: .video)).path }
        #expect(relative.hasPrefix("Recordings/Thumbnails/video_") && relative.hasSuffix(".jpg"))
        return library.url.appendingPathComponent(relative)
    }

    @Test("a 640x480 video gives a 320x240 JPEG, private, that ffprobe reads")
    func landscape() async throws {
        let url = try thumbnail(of: try await Fixture.video(seconds: 2))
        let probe = try await run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", url.path])
        #expect(probe.output.trimmingCharacters(in: .whitespacesAndNewlines) == "mjpeg")
        let picture = try await Fixture.brightness(of: url)
        #expect(picture.width == 320 && picture.height == 240)
        #expect(picture.mean > 40)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.thumbnailsURL.path).count == 1,
                "no temporary file is left")
    }

    @Test("rotation metadata is honoured: a 640x480 video shown turned 90 degrees gives a portrait thumbnail")
    func rotated() async throws {
        // ffmpeg 5.1 writes the rotation only when stream copying.
        let plain = try await Fixture.video(seconds: 2, size: "640x480")
        let video = try await Fixture.make("mp4", ["-i", plain.path, "-c", "copy", "-metadata:s:v:0", "rotate=90"])
        let shown = try await run("ffprobe", ["-v", "error", "-show_entries", "stream_side_data=rotation", "-of", "csv=p=0", video.path])
        #expect(shown.output.contains("90"), "ffprobe sees the display matrix: \(shown.output)")
        let ours = try thumbnail(of: video)
        let picture = try await Fixture.brightness(of: ours)
        #expect(picture.width == 320 && (426...428).contains(picture.height))
        // Turned the same way as ffmpeg turns it (the ffmpeg tool rotates by default).
        let reference = try await Fixture.make("jpg", ["-ss", "0.2", "-i", video.path, "-vf", "scale=320:\(picture.height)",
                                                 "-frames:v", "1"])
        #expect(try await Fixture.difference(ours, reference) < 25)
        #expect(try await Fixture.difference(ours, try await Fixture.make("jpg", ["-i", reference.path, "-vf", "hflip,vflip"])) > 25,
                "the comparison can tell a picture from its half turn")
    }

    @Test("half and three-quarter turns are honoured as ffmpeg honours them", arguments: [180, 270])
    func turned(degrees: Int) async throws {
        // Given a 640x480 video whose display matrix says to turn it
        let plain = try await Fixture.video(seconds: 2, size: "640x480")
        let video = try await Fixture.make("mp4", ["-i", plain.path, "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)"])
        // When its thumbnail is made
        let ours = try thumbnail(of: video)
        // Then it has the displayed shape and looks like ffmpeg's own upright frame
        let picture = try await Fixture.brightness(of: ours)
        let heights = degrees == 180 ? 240...240 : 426...428
        #expect(picture.width == 320 && heights.contains(picture.height))
        let reference = try await Fixture.make("jpg", ["-ss", "0.2", "-i", video.path, "-vf", "scale=320:\(picture.height)",
                                                 "-frames:v", "1"])
        #expect(try await Fixture.difference(ours, reference) < 25)
        #expect(try await Fixture.difference(ours, try await Fixture.make("jpg", ["-i", reference.path, "-vf", "hflip,vflip"])) > 25,
                "the comparison can tell a picture from its half turn")
    }

    @Test("near-black frames at 10% are skipped for the first bright one")
    func skipsBlack() async throws {
        // 10 s: black for the first 3 s, then the bright test pattern.
        let video = try await Fixture.make("mp4", [
            "-f", "lavfi", "-i", "color=black:size=320x240:rate=25:duration=3",
            "-f", "lavfi", "-i", "color=white:size=320x240:rate=25:duration=7",
            "-filter_complex", "[0][1]concat=n=2:v=1[v]", "-map", "[v]",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25"])
        let picture = try await Fixture.brightness(of: try thumbnail(of: video))
        #expect(picture.mean > 200, "mean brightness \(picture.mean)")
    }

    @Test("an all-black video still gets its first frame; a file without video is undecodable")
    func fallbacks() async throws {
        let black = try await Fixture.make("mp4", ["-f", "lavfi", "-i", "color=black:size=320x240:rate=25:duration=2",
                                             "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        #expect(try await Fixture.brightness(of: try thumbnail(of: black)).mean < 20)
        await #expect { _ = try Thumbnailer.jpeg(forVideoAt: .outside(try await Fixture.audio())) } throws: {
            ($0 as? CraveyError)?.kind == .undecodableMedia
        }
    }
}
