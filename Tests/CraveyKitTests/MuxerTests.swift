import CraveyTestSupport
import Foundation
import SystemPackage
import Testing
@testable import CraveyCore
@testable import CraveyKit

@Suite("Muxer: files it cannot fill are not left behind", .temporaryFiles)
struct MuxerTests {
    let store: LibraryStore
    /// `Recordings/` of a fresh library: media files are only ever created in a library.
    let folder: URL

    init() throws {
        let library = try RecordingLibrary(at: temporaryLibrary())
        store = library.store
        folder = library.recordingsURL
    }

    /// A new name a recording's media has while it is written.
    func partial() -> StoredFile {
        ClipFiles(id: RecordingID(), type: .audio).media(.recording)
    }

    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "Thumbnails" }
    }

    @Test("a muxer name FFmpeg does not know throws and leaves no file")
    func unknownFormat() throws {
        // Given a path in an empty folder
        let output = partial()
        // When a muxer is asked for a format that does not exist
        #expect(throws: FFmpegError.self) {
            try store.create(output) { file in _ = try Muxer(writingTo: file, format: "no-such-muxer") }
        }
        // Then nothing was created
        #expect(try contents().isEmpty)
    }

    @Test("a remux that fails before the header (nothing to copy) leaves no file")
    func failureBeforeHeader() throws {
        // Given media FFmpeg opens that holds neither audio nor video (a subtitle file)
        let subtitles = folder.appendingPathComponent("words.srt")
        try Data("1\n00:00:00,000 --> 00:00:01,000\nHello\n".utf8).write(to: subtitles)
        let output = partial()
        // When it is remuxed
        #expect(throws: FFmpegError.streamNotFound) {
            try store.create(output) { try Muxer.remux(subtitles, into: $0, format: Container.mp4.formatName) }
        }
        // Then only the source is there
        #expect(try contents() == ["words.srt"])
    }

    @Test("a header FFmpeg refuses is abandoned without a file; a closed muxer keeps its file")
    func abandonAndClose() async throws {
        // Given a muxer with no stream, whose header FFmpeg refuses
        let refused = partial()
        // When its owner gives it up
        #expect(throws: FFmpegError.self) {
            try store.create(refused) { file in
                let muxer = try Muxer(writingTo: file, format: Container.m4a.formatName)
                #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(refused.name).path), "open creates the file")
                do { try muxer.writeHeader() } catch {
                    muxer.abandon()
                    throw error
                }
            }
        }
        // Then the empty file is gone
        #expect(try contents().isEmpty)

        // Given a remux that succeeds
        let kept = partial()
        let source = try await Fixture.audio(seconds: 0.5)
        try store.create(kept) { try Muxer.remux(source, into: $0, format: Container.m4a.formatName) }
        // Then its file is there, private
        #expect(try contents() == [kept.name])
        #expect(try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(kept.name).path)[.posixPermissions] as? Int == 0o600)
    }

    @Test("a file that cannot be created is an errno error, and a full disk reads as cannot-write")
    func errnoErrors() throws {
        // Given a path in a library folder that does not exist
        let missing = try RecordingLibrary(at: temporaryLibrary())
        try FileManager.default.removeItem(at: missing.recordingsURL)
        let file = partial()
        let output = missing.fileURL(file)
        // When a muxer opens it, Then the failure is the system's errno, not an FFmpeg code
        #expect(throws: Errno.noSuchFileOrDirectory) { _ = try missing.store.create(file) }
        // And errno errors and FFmpeg's AVERROR(errno) both explain a full disk
        #expect(CraveyError.writing(Errno.noSpace, to: output).kind == .cannotWrite)
        #expect(CraveyError.writing(FFmpegError(code: -ENOSPC, operation: "avio_write"), to: output).kind == .cannotWrite)
        #expect(CraveyError.writing(Errno.noSuchFileOrDirectory, to: output).kind == .other)
    }
}
