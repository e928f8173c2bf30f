import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey share`: every format read back by ffprobe and GStreamer, its tags and its level.
@Suite("cravey share", .temporaryFiles)
struct ShareCommandTests {
    let library = temporaryLibrary()

    /// Imports a 3 s tone at a tenth of full scale (about -23 LUFS: cravey plays it louder).
    func imported(_ file: URL? = nil) async throws -> (id: String, recording: Recording) {
        let source = try file ?? Fixture.make("m4a", ["-f", "lavfi", "-i", "sine=frequency=440:duration=3:sample_rate=48000",
                                                       "-af", "volume=0.1", "-ac", "1", "-c:a", "aac"])
        let result = try await Cravey.run(["import", source.path, "--title", "For Sam", "--library", library.path])
        try #require(result.status == 0, "\(result.error)")
        let id = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let uuid = try #require(RecordingID(id))
        return (id, try #require(try RecordingLibrary(at: library).recording(uuid)))
    }

    @Test("each format decodes with ffprobe and GStreamer, mode 0600, at the level cravey plays the clip at (within 0.5 LU), with no creation time, encoder or cravey id, and the title only when asked")
    func everyFormat() async throws {
        let (id, recording) = try await imported()
        let loudness = try #require(recording.loudness)
        let playLevel = loudness.integrated + loudness.playbackGain()
        for ext in ["m4a", "opus", "mp3", "ogg", "wav"] {
            let output = temporaryFolder().appendingPathComponent("shared.\(ext)")
            let shared = try await Cravey.run(["share", id, "--output", output.path, "--title", "Breathe", "--library", library.path])
            try #require(shared.status == 0, "\(ext): \(shared.error)")
            #expect(try FileManager.default.attributesOfItem(atPath: output.path)[.posixPermissions] as? Int == 0o600)
            #expect(abs(try Witness.ffprobe(output).duration - 3) < 0.1, "\(ext): ffprobe")
            #expect(abs(try TrimCommandTests.gstreamerDuration(output) - 3) < 0.1, "\(ext): GStreamer")
            let level = try Witness.ebur128(["-i", output.path], dualMono: true).integrated
            #expect(abs(level - playLevel) <= 0.5, "\(ext): \(level) LUFS, cravey plays it at \(playLevel)")
            // Every line but the file's own name, which is the test's.
            let shown = try run("ffprobe", ["-v", "error", "-show_format", "-show_streams", output.path]).output.lowercased()
                .split(separator: "\n").filter { !$0.hasPrefix("filename=") }.joined(separator: "\n")
            #expect(!shown.contains("creation_time") && !shown.contains("encoder") && !shown.contains(id) && !shown.contains("cravey"),
                    "\(ext): \(shown)")
            #expect(shown.contains("title=breathe"), "\(ext): the title asked for")
            let bytes = try Data(contentsOf: output)
            #expect(bytes.range(of: Data(id.utf8)) == nil && bytes.range(of: Data("cravey".utf8)) == nil, "\(ext): no id in the bytes")
        }
        let untitled = temporaryFolder().appendingPathComponent("untitled.m4a")
        try #require(try await Cravey.run(["share", id, "--output", untitled.path, "--library", library.path]).status == 0)
        let tags = try run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", untitled.path]).output
        #expect(!tags.contains("title") && !tags.contains("For Sam"), "no title unless asked: \(tags)")
    }

    @Test("a video shares as .mp4 (its pictures copied, GStreamer and ffprobe read both streams) or as sound alone; an audio clip as .mp4 is refused (64)")
    func video() async throws {
        let (id, _) = try await imported(try Fixture.video(seconds: 2, size: "320x240"))
        let output = temporaryFolder().appendingPathComponent("shared.mp4")
        let shared = try await Cravey.run(["share", id, "--output", output.path, "--library", library.path])
        try #require(shared.status == 0, "\(shared.error)")
        let streams = try run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", output.path]).output
        #expect(streams.contains("video") && streams.contains("audio"), "\(streams)")
        #expect(abs(try TrimCommandTests.gstreamerDuration(output) - 2) < 0.1)
        let sound = temporaryFolder().appendingPathComponent("sound.opus")
        #expect(try await Cravey.run(["share", id, "--output", sound.path, "--library", library.path]).status == 0)
        let (audio, _) = try await imported()
        let refused = try await Cravey.run(["share", audio, "--output", temporaryFolder().appendingPathComponent("a.mp4").path,
                                            "--library", library.path])
        #expect(refused.status == 64 && refused.error.contains(".m4a"), "\(refused.error)")
    }

    @Test("refused as export --output refuses (64): a file already there without --force, a place inside the library, a folder even with --force; an extension of no format; --force replaces a file")
    func refusals() async throws {
        let (id, _) = try await imported()
        let existing = temporaryFolder().appendingPathComponent("there.m4a")
        try Data("keep me".utf8).write(to: existing)
        let folder = temporaryFolder().appendingPathComponent("folder.m4a")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (arguments, why) in [(["--output", existing.path], "something is there"), (["--output", library.appendingPathComponent("in.m4a").path], "inside the library"),
                                 (["--output", folder.path, "--force"], "not a regular file"),
                                 (["--output", temporaryFolder().appendingPathComponent("x.flac").path], "names no format")] {
            let result = try await Cravey.run(["share", id, "--library", library.path] + arguments)
            #expect(result.status == 64 && result.error.contains(why), "\(arguments): \(result.status) \(result.error)")
        }
        #expect(try Data(contentsOf: existing) == Data("keep me".utf8))
        let export = try await Cravey.run(["export", "--format", "csv", "--output", existing.path, "--library", library.path])
        #expect(export.status == 64, "the same refusal as export's")
        let forced = try await Cravey.run(["share", id, "--output", existing.path, "--force", "--library", library.path])
        let codec = try Witness.ffprobe(existing).audioCodec
        #expect(forced.status == 0 && codec == "aac")
        let unknown = try await Cravey.run(["share", "0000", "--output", existing.path, "--force", "--library", library.path])
        #expect(unknown.status == 66)
    }
}
