import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Shares whose files ffprobe, ffmpeg and GStreamer read back as independent witnesses: every
/// format's duration, level and tags, a video's streams and pictures, no encoder's name, the
/// chapters. The share itself runs in process (``Outcome``); its refusals are in
/// ShareCommandTests.swift.
extension ShareCommandTests {
    @Test("each format decodes with ffprobe and GStreamer, mode 0600, at the level cravey plays the clip at (within 0.5 LU), with no creation time, encoder or cravey id, and the title only when asked")
    func everyFormat() async throws {
        let (id, recording) = try await imported()
        let loudness = try #require(recording.loudness)
        let playLevel = loudness.integrated + loudness.playbackGain()
        for ext in ["m4a", "opus", "mp3", "ogg", "wav"] {
            let output = temporaryFolder().appendingPathComponent("shared.\(ext)")
            let shared = try await Outcome.of(["share", id, "--output", output.path, "--title", "Breathe", "--library", library.path])
            try #require(shared.status == 0, "\(ext): \(shared.error)")
            #expect(try FileManager.default.attributesOfItem(atPath: output.path)[.posixPermissions] as? Int == 0o600)
            #expect(abs(try await Witness.ffprobe(output).duration - 3) < 0.1, "\(ext): ffprobe")
            await #expect(abs(try TrimCommandTests.gstreamerDuration(output) - 3) < 0.1, "\(ext): GStreamer")
            let level = try await Witness.ebur128(["-i", output.path], dualMono: true).integrated
            #expect(abs(level - playLevel) <= 0.5, "\(ext): \(level) LUFS, cravey plays it at \(playLevel)")
            // Every line but the file's own name, which is the test's.
            let shown = try await run("ffprobe", ["-v", "error", "-show_format", "-show_streams", output.path]).output.lowercased()
                .split(separator: "\n").filter { !$0.hasPrefix("filename=") }.joined(separator: "\n")
            #expect(!shown.contains("creation_time") && !shown.contains("encoder") && !shown.contains(id) && !shown.contains("cravey"),
                    "\(ext): \(shown)")
            #expect(shown.contains("title=breathe"), "\(ext): the title asked for")
            let bytes = try Data(contentsOf: output)
            #expect(bytes.range(of: Data(id.utf8)) == nil && bytes.range(of: Data("cravey".utf8)) == nil, "\(ext): no id in the bytes")
        }
        let untitled = temporaryFolder().appendingPathComponent("untitled.m4a")
        try #require(try await Outcome.of(["share", id, "--output", untitled.path, "--library", library.path]).status == 0)
        let tags = try await run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", untitled.path]).output
        #expect(!tags.contains("title") && !tags.contains("For Sam"), "no title unless asked: \(tags)")
    }

    @Test("a video shares as .mp4 (its pictures copied, GStreamer and ffprobe read both streams) or as sound alone; an audio clip as .mp4 is refused (64)")
    func video() async throws {
        let (id, _) = try await imported(try await Fixture.video(seconds: 2, size: "320x240"))
        let output = temporaryFolder().appendingPathComponent("shared.mp4")
        let shared = try await Outcome.of(["share", id, "--output", output.path, "--library", library.path])
        try #require(shared.status == 0, "\(shared.error)")
        let streams = try await run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", output.path]).output
        #expect(streams.contains("video") && streams.contains("audio"), "\(streams)")
        await #expect(abs(try TrimCommandTests.gstreamerDuration(output) - 2) < 0.1)
        let sound = temporaryFolder().appendingPathComponent("sound.opus")
        #expect(try await Outcome.of(["share", id, "--output", sound.path, "--library", library.path]).status == 0)
        let (audio, _) = try await imported()
        let refused = try await Outcome.of(["share", audio, "--output", temporaryFolder().appendingPathComponent("a.mp4").path,
                                            "--library", library.path])
        #expect(refused.status == 64 && refused.error.contains(".m4a"), "\(refused.error)")
    }

    @Test("a shared video names no encoder: x264's notes (its SEI: name, version, options) are gone from the pictures of an H.264 clip kept as it came and of one cravey encoded; no encoder tag; it still decodes whole with ffmpeg and GStreamer")
    func videoNamesNoEncoder() async throws {
        // Given a video imported as it came (H.264 from x264, remuxed) and one cravey encoded (MPEG-4 Part 2, transcoded)
        let sources = [("kept as it came", try await Fixture.video(seconds: 2, size: "320x240")),
                       ("encoded by cravey", try await Fixture.video(seconds: 2, size: "320x240", ext: "mkv", codec: ["-c:v", "mpeg4", "-c:a", "aac"]))]
        for (what, source) in sources {
            let (id, recording) = try await imported(source)
            let stored = try Data(contentsOf: try RecordingLibrary(at: library).fileURL(of: recording))
            try #require(stored.range(of: Data("x264".utf8)) != nil, "\(what): the clip itself carries x264's notes, which is what is taken out")

            // When it is shared as .mp4
            let output = temporaryFolder().appendingPathComponent("shared-\(id.prefix(8)).mp4")
            let shared = try await Outcome.of(["share", id, "--output", output.path, "--library", library.path])
            try #require(shared.status == 0, "\(what): \(shared.error)")

            // Then no byte names the encoder or FFmpeg's libraries, and no tag does
            let bytes = Data(try Data(contentsOf: output).map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 })
            for name in ["x264", "lavf", "lavc", "libx264", "h.264/mpeg-4 avc codec"] {
                #expect(bytes.range(of: Data(name.utf8)) == nil, "\(what): the shared file holds \"\(name)\"")
            }
            let shown = try await run("ffprobe", ["-v", "error", "-show_format", "-show_streams", output.path]).output.lowercased()
            #expect(!shown.contains("encoder") && !shown.contains("x264") && !shown.contains("lav"), "\(what): \(shown)")
            // And it decodes whole: every picture and every sample, without an error, by both
            let decoded = try await run("ffmpeg", ["-v", "error", "-i", output.path, "-f", "null", "-"])
            #expect(decoded.status == 0 && decoded.error.isEmpty, "\(what): \(decoded.error)")
            func pictures(_ file: URL) async throws -> Int {
                let counted = try await run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                  "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file.path])
                return Int(counted.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            }
            // Every picture of the clip's, but one past the end of its sound, which the copy ends at.
            let (kept, had) = await (try pictures(output), try pictures(try RecordingLibrary(at: library).fileURL(of: recording)))
            #expect(kept >= had - 1 && kept <= had && had >= 49, "\(what): \(kept) of its \(had) pictures")
            await #expect(abs(try TrimCommandTests.gstreamerDuration(output) - 2) < 0.1, "\(what): GStreamer")
        }
    }

    @Test("--chapters writes the markers as chapters (ffprobe -show_chapters: each from its marker to the next, titled by its label or Marker N, after a Start chapter) in m4a and mp3; without it no chapter and no label; opus, ogg, wav and a clip without markers are refused (64)")
    func chapters() async throws {
        // Given a 3 s clip marked at 0.5 s ("Intro") and 2 s (no label)
        let (id, _) = try await imported()
        let plain = temporaryFolder().appendingPathComponent("plain.m4a")
        #expect(try await Outcome.of(["share", id, "--output", plain.path, "--chapters", "--library", library.path]).status == 64)
        for (time, label) in [("0.5", ["--label", "Intro"]), ("2", [])] {
            try #require(try await Outcome.of(["markers", id, "--add", time] + label + ["--library", library.path]).status == 0)
        }

        for ext in ["m4a", "mp3"] {
            // When it is shared with --chapters
            let output = temporaryFolder().appendingPathComponent("chaptered.\(ext)")
            let shared = try await Outcome.of(["share", id, "--output", output.path, "--chapters", "--library", library.path])
            try #require(shared.status == 0, "\(ext): \(shared.error)")

            // Then ffprobe reads the chapters where the markers are, up to the next and the end
            let probed = try await run("ffprobe", ["-v", "error", "-show_chapters", "-of", "json", output.path]).output
            let object = try #require(try JSONSerialization.jsonObject(with: Data(probed.utf8)) as? [String: Any])
            let chapters = try #require(object["chapters"] as? [[String: Any]], "\(ext): \(probed)")
            let times = chapters.map { (Double($0["start_time"] as? String ?? "") ?? -1, Double($0["end_time"] as? String ?? "") ?? -1) }
            let titles = chapters.map { ($0["tags"] as? [String: Any])?["title"] as? String }
            #expect(titles == ["Start", "Intro", "Marker 2"], "\(ext): \(probed)")
            #expect(times.count == 3 && abs(times[0].0) < 0.002 && abs(times[0].1 - 0.5) < 0.002 && abs(times[1].0 - 0.5) < 0.002
                    && abs(times[1].1 - 2) < 0.002 && abs(times[2].0 - 2) < 0.002 && abs(times[2].1 - 3) < 0.05, "\(ext): \(times)")
            #expect(abs(try await Witness.ffprobe(output).duration - 3) < 0.1, "\(ext): ffprobe")
        }

        // Without --chapters: no chapter, and no label anywhere in the bytes; .wav refused
        let unasked = temporaryFolder().appendingPathComponent("unasked.m4a")
        try #require(try await Outcome.of(["share", id, "--output", unasked.path, "--library", library.path]).status == 0)
        #expect(try await run("ffprobe", ["-v", "error", "-show_chapters", "-of", "csv", unasked.path]).output.isEmpty)
        #expect(try Data(contentsOf: unasked).range(of: Data("Intro".utf8)) == nil)
        for ext in ["wav", "opus", "ogg"] {
            let refusedFile = temporaryFolder().appendingPathComponent("chaptered.\(ext)")
            let refused = try await Outcome.of(["share", id, "--output", refusedFile.path, "--chapters", "--library", library.path])
            #expect(refused.status == 64 && !FileManager.default.fileExists(atPath: refusedFile.path), "\(ext): \(refused.error)")
        }
    }
}
