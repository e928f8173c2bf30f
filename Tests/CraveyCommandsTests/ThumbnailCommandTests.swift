import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey thumbnail`: a video's thumbnail made again, stored or written elsewhere (issue 8); its
/// refusals, which change nothing, and its help; run in process (``Outcome``) as `cravey-media`
/// runs it. (The pictures it makes, read by ffmpeg: ThumbnailPictureTests.swift.)
@Suite("cravey thumbnail", .temporaryFiles)
struct ThumbnailCommandTests {
    let library = temporaryLibrary()

    /// Imports a `Media/` fixture and returns its row.
    func imported(_ name: String) async throws -> Recording {
        let result = try await Outcome.of(["import", MediaFixture.named(name).url.path, "--library", library.path])
        #expect(result.status == 0, "\(result.error)")
        let id = try #require(RecordingID(result.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(result)")
        return try #require(try RecordingLibrary(at: library).recording(id))
    }

    /// The library as it stands: its rows and every file's bytes under Recordings/.
    func state() throws -> (rows: [Recording], files: [String: Data]) {
        var files: [String: Data] = [:]
        let root = library.appendingPathComponent("Recordings")
        for case let path as String in FileManager.default.enumerator(atPath: root.path) ?? FileManager.DirectoryEnumerator() {
            files[path] = FileManager.default.contents(atPath: root.appendingPathComponent(path).path)
        }
        return (try RecordingLibrary(at: library).recordings(), files)
    }

    @Test("an audio clip (64), an unknown id (66), a missing file (66), a video that does not decode (65, even with --at): nothing changes")
    func refusals() async throws {
        // Given an audio clip and two videos
        let audio = try await imported("tone.m4a")
        let missing = try await imported("video.mp4")
        let broken = try await imported("vp8.webm")
        try FileManager.default.removeItem(at: library.appendingPathComponent(missing.filePath))
        try Data(repeating: 0x42, count: 4096).write(to: library.appendingPathComponent(broken.filePath))
        let before = try state()

        // When each is asked for a thumbnail
        let thumbnail = { (arguments: [String]) in try await Outcome.of(["thumbnail"] + arguments + ["--library", self.library.path]) }
        let onAudio = try await thumbnail([audio.id.uuid.uuidString])
        let pastEnd = try await thumbnail([broken.id.uuid.uuidString, "--at", "99"])
        let unknown = try await thumbnail(["ffffffff"])
        let gone = try await thumbnail([missing.id.uuid.uuidString])
        let undecodable = try await thumbnail([broken.id.uuid.uuidString])
        let outputOfAudio = try await thumbnail([audio.id.uuid.uuidString, "--output", temporaryFolder().appendingPathComponent("a.jpg").path])

        // Then each exits as it should with a message naming the clip or the cause, and nothing changed
        #expect(onAudio.status == 64 && onAudio.error.contains("\"tone\" is an audio recording"), "\(onAudio.error)")
        #expect(outputOfAudio.status == 64, "\(outputOfAudio.error)")
        #expect(unknown.status == 66, "\(unknown.error)")
        #expect(gone.status == 66 && gone.error.contains("missing"), "\(gone.error)")
        #expect(undecodable.status == 65, "\(undecodable.error)")
        #expect(pastEnd.status == 65, "the file is read first: \(pastEnd.error)")
        #expect(onAudio.output.isEmpty && unknown.output.isEmpty && gone.output.isEmpty && undecodable.output.isEmpty)
        let after = try state()
        #expect(after.rows == before.rows && after.files == before.files)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporaryFolder().path).allSatisfy { !$0.hasSuffix(".jpg") })
    }

    @Test("a time past the end of a video that decodes is exit 64, naming its length")
    func pastTheEnd() async throws {
        let video = try await imported("video.mp4")
        let before = try state()
        let result = try await Outcome.of(["thumbnail", video.id.uuid.uuidString, "--at", "2.5", "--library", library.path])
        #expect(result.status == 64 && result.error.contains("2 s long"), "\(result.error)")
        let after = try state()
        #expect(after.rows == before.rows && after.files == before.files)
    }

    @Test("thumbnail is a cravey-media verb that cravey lists in its help, with the same help text")
    func routed() async throws {
        let root = try await Outcome.of(["--help"])
        let viaMedia = try await Outcome.of(["thumbnail", "--help"])
        let viaCravey = try await Outcome.of(["help", "thumbnail"])
        #expect(root.output.contains("\n  thumbnail "))
        #expect(viaMedia.status == 0 && viaMedia.output.contains("USAGE: cravey thumbnail") && viaMedia.output == viaCravey.output)
    }
}
