import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Thumbnails whose pictures ffmpeg reads back as an independent witness: their size, their
/// brightness, another frame at --at. The command runs in process (``Outcome``); its refusals are
/// in ThumbnailCommandTests.swift.
extension ThumbnailCommandTests {
    @Test("a video's thumbnail made again: a 320 px JPEG at the row's thumbnailPath, printed; --at takes another frame")
    func regenerates() async throws {
        // Given an imported video whose thumbnail file was lost
        let video = try await imported("video.mp4")
        let path = try #require(video.thumbnailPath)
        let file = library.appendingPathComponent(path)
        let first = try Data(contentsOf: file)
        try FileManager.default.removeItem(at: file)

        // When its thumbnail is made again, by a prefix of its id, then at 1.8 s and at the very end
        let made = try await Outcome.of(["thumbnail", String(video.id.description.prefix(8)), "--library", library.path])
        let again = try Data(contentsOf: file)
        let copy = temporaryFolder().appendingPathComponent("default.jpg")
        try again.write(to: copy)
        let late = try await Outcome.of(["thumbnail", video.id.uuid.uuidString, "--at", "1.8", "--json", "--library", library.path])
        let lateDiffers = try await Fixture.difference(copy, file)
        let end = try await Outcome.of(["thumbnail", video.id.uuid.uuidString, "--at", "2", "--library", library.path])

        // Then each exits 0; the file is a private 320x240 JPEG where the row says (the only
        // thumbnail); the default one is the import's, the one at 1.8 s another picture
        #expect(made.status == 0 && made.output == path + "\n", "\(made.output) \(made.error)")
        #expect(again == first)
        #expect(late.status == 0 && late.output.contains("\"thumbnailPath\" : \"\(path)\""), "\(late.error)")
        #expect(lateDiffers > 1, "the frame at 1.8 s looks like the one at 0.2 s")
        #expect(end.status == 0, "\(end.error)")
        let picture = try await Fixture.brightness(of: file)
        #expect(picture.width == 320 && picture.height == 240 && picture.mean > 20)
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
        let (rows, files) = try state()
        #expect(rows.first?.thumbnailPath == path && files.keys.filter { $0.hasPrefix("Thumbnails/") }.count == 1)
    }

    @Test("a row without a thumbnail gets one, stored under the video's name")
    func storesAMissingThumbnail() async throws {
        // Given an imported video whose row lost its thumbnail
        let video = try await imported("phone-rotated.mp4")
        let opened = try RecordingLibrary(at: library)
        try opened.store.write { tx in try tx.repository.updateThumbnail(of: video.id, to: nil) }
        try FileManager.default.removeItem(at: library.appendingPathComponent(try #require(video.thumbnailPath)))

        // When it is made again
        let result = try await Outcome.of(["thumbnail", video.id.uuid.uuidString, "--library", library.path])

        // Then the row points at a new 320 px wide JPEG, upright (the phone video is portrait)
        #expect(result.status == 0, "\(result.error)")
        let row = try #require(try opened.recording(video.id))
        #expect(row.thumbnailPath == ClipFiles(id: video.id, type: .video).file(.thumbnail)!.path)
        let picture = try await Fixture.brightness(of: library.appendingPathComponent(try #require(row.thumbnailPath)))
        #expect(picture.width == 320 && picture.height > 320)
    }

    @Test("--output writes the JPEG elsewhere and changes nothing in the library; refused as export --output is")
    func output() async throws {
        // Given an imported video and the library as it is
        let video = try await imported("video.mp4")
        let before = try state()
        let folder = temporaryFolder()
        let target = folder.appendingPathComponent("cover.jpg")
        let id = video.id.uuid.uuidString

        // When the thumbnail goes to a new file, then again without and with --force
        let written = try await Outcome.of(["thumbnail", id, "--at", "1", "--output", target.path, "--library", library.path])
        let exists = try await Outcome.of(["thumbnail", id, "--output", target.path, "--library", library.path])
        let forced = try await Outcome.of(["thumbnail", id, "--output", target.path, "--force", "--library", library.path])
        let aFolder = try await Outcome.of(["thumbnail", id, "--output", folder.path, "--force", "--library", library.path])
        let inside = try await Outcome.of(["thumbnail", id, "--output", library.appendingPathComponent("Recordings/x.jpg").path,
                                           "--library", library.path])

        // Then the new file is a 320 px JPEG, what exists is refused without --force (64),
        // replaced with it, a folder and the library refused (64), and the library unchanged
        #expect(written.status == 0 && written.output.isEmpty, "\(written.error)")
        let picture = try await Fixture.brightness(of: target)
        #expect(picture.width == 320 && picture.height == 240)
        #expect(try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int == 0o600)
        #expect(exists.status == 64 && exists.error.contains("--force"), "\(exists.error)")
        #expect(forced.status == 0, "\(forced.error)")
        #expect(aFolder.status == 64 && aFolder.error.contains("not a regular file"), "\(aFolder.error)")
        #expect(inside.status == 64 && inside.error.contains("inside the library"), "\(inside.error)")
        let after = try state()
        #expect(after.rows == before.rows && after.files == before.files)
    }
}
