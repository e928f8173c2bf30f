import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey share`, run in process (``Outcome``) as `cravey-media` runs it: what it refuses, the
/// file it replaces read by cravey's own probe. (The files it writes, read by ffprobe, ffmpeg and
/// GStreamer: ShareWitnessTests.swift.)
@Suite("cravey share", .temporaryFiles)
struct ShareCommandTests {
    let library = temporaryLibrary()

    /// Imports a 3 s tone at a tenth of full scale (about -23 LUFS: cravey plays it louder).
    func imported(_ file: URL? = nil) async throws -> (id: String, recording: Recording) {
        let source = if let file { file } else { try await Fixture.make("m4a", ["-f", "lavfi", "-i", "sine=frequency=440:duration=3:sample_rate=48000",
                                                       "-af", "volume=0.1", "-ac", "1", "-c:a", "aac"]) }
        let result = try await Outcome.of(["import", source.path, "--title", "For Sam", "--library", library.path])
        try #require(result.status == 0, "\(result.error)")
        let id = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let uuid = try #require(RecordingID(id))
        return (id, try #require(try RecordingLibrary(at: library).recording(uuid)))
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
            let result = try await Outcome.of(["share", id, "--library", library.path] + arguments)
            #expect(result.status == 64 && result.error.contains(why), "\(arguments): \(result.status) \(result.error)")
        }
        #expect(try Data(contentsOf: existing) == Data("keep me".utf8))
        let export = try await Outcome.of(["export", "--format", "csv", "--output", existing.path, "--library", library.path])
        #expect(export.status == 64, "the same refusal as export's")
        let forced = try await Outcome.of(["share", id, "--output", existing.path, "--force", "--library", library.path])
        let codec = try MediaProbe.info(of: .outside(existing)).audioStream?.codecName
        #expect(forced.status == 0 && codec == "aac", "\(forced)")
        let unknown = try await Outcome.of(["share", "0000", "--output", existing.path, "--force", "--library", library.path])
        #expect(unknown.status == 66)
    }
}
