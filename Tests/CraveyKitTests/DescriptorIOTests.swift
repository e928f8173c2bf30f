import CraveyTestSupport
import Foundation
import SystemPackage
import Testing
@testable import CraveyCore
@testable import CraveyKit

@Suite("Descriptor I/O: FFmpeg reads and rewrites library files through descriptors, never by a path", .temporaryFiles)
struct DescriptorIOTests {
    let library: RecordingLibrary

    init() throws {
        library = try RecordingLibrary(at: temporaryLibrary())
    }

    /// What opening a file gave: its snapshot and where its media stops, or FFmpeg's error code.
    struct Opened: Equatable, CustomStringConvertible {
        var info: MediaInfo?
        var firstMissingSample: Double?
        var error: Int32?

        init(_ open: () throws(FFmpegError) -> Demuxer) {
            do {
                let input = try open()
                info = input.info
                firstMissingSample = input.firstMissingSample()
            } catch {
                self.error = error.code
            }
        }

        var description: String { error.map { "error \($0)" } ?? "\(info!.formatName), missing at \(String(describing: firstMissingSample))" }
    }

    /// A copy of `url` in the test's folder, opened read-only, and its name then removed: whatever
    /// reads the descriptor cannot have opened the file by a path.
    func unlinkedCopy(of url: URL) throws -> FileDescriptor {
        let copy = temporaryFolder().appendingPathComponent("unlinked-\(UUID().uuidString)-\(url.lastPathComponent)")
        try FileManager.default.copyItem(at: url, to: copy)
        let descriptor = try FileDescriptor.open(copy.path, .readOnly, options: [.closeOnExec])
        try FileManager.default.removeItem(at: copy)
        return descriptor
    }

    /// Where the first frame decoded after seeking to `seconds` starts, in the first audio stream
    /// (or the video one, for a file without audio); the seek's or decoder's error code otherwise.
    func firstFrame(after seconds: Double, in input: Demuxer) -> SeekOutcome {
        do throws(FFmpegError) {
            let info = input.info
            guard let stream = info.audioStream ?? info.videoStream else { return .error(FFmpegError.streamNotFound.code) }
            let decoder = try Decoder(stream: Int32(stream.index), of: input)
            try input.seek(to: seconds)
            var start: Double?
            var frames = 0
            try input.walk(decoding: [decoder], frames: { (decoder, frame) throws(FFmpegError) in
                start = start ?? decoder.seconds(of: frame)
                frames += 1
                return frames == 5 ? .stop : .next
            })
            return .frames(start: start, count: frames)
        } catch {
            return .error(error.code)
        }
    }

    /// What decoding after a seek gave.
    enum SeekOutcome: Equatable {
        case frames(start: Double?, count: Int)
        case error(Int32)
    }

    @Test("every file in Media/ reads through a descriptor as it does by path", arguments: MediaFixture.all)
    func sameAsByPath(fixture: MediaFixture) throws {
        // Given a fixture, opened by its path and through a descriptor of the same file
        let byPath = Opened { () throws(FFmpegError) in try Demuxer(url: fixture.url) }
        let descriptor = try FileDescriptor.open(fixture.url.path, .readOnly, options: [.closeOnExec])
        defer { try? descriptor.close() }
        let throughDescriptor = Opened { () throws(FFmpegError) in try Demuxer(reading: descriptor, name: fixture.name) }
        // Then both give the same snapshot and the same end of media (avio_size: AVSEEK_SIZE), or the same error
        #expect(throughDescriptor == byPath)
        if !fixture.isMalformed {
            #expect(byPath.info != nil)
        }
    }

    @Test("a file whose name is gone, and whose opener closed its descriptor, still reads to its end")
    func unlinkedAndClosed() throws {
        // Given a video clip opened, its name removed, read through a descriptor the opener then closes
        let fixture = MediaFixture.named("video.mp4")
        let descriptor = try unlinkedCopy(of: fixture.url)
        let input = try Demuxer(reading: descriptor, name: fixture.name)
        try descriptor.close()
        // When every packet is read and its audio decoded
        let audio = try #require(input.info.audioStream)
        let decoder = try Decoder(stream: Int32(audio.index), of: input)
        var packets = 0
        var lastFrame = 0.0
        try input.walk(decoding: [decoder], packets: { _ in packets += 1; return .next },
                       frames: { (decoder, frame) throws(FFmpegError) in
                           lastFrame = max(lastFrame, decoder.seconds(of: frame) ?? 0)
                           return .next
                       })
        // Then the demuxer read it all, through its own copy of the descriptor
        #expect(input.info == Opened { () throws(FFmpegError) in try Demuxer(url: fixture.url) }.info)
        #expect(packets > 50)
        #expect(lastFrame > 1.8)
    }

    @Test("seeking through a descriptor lands where it lands by path, and decodes",
          arguments: MediaFixture.playable)
    func seeks(fixture: MediaFixture) throws {
        // Given the fixture by path, and through a descriptor of a copy whose name is gone
        let target = try #require(fixture.seconds) / 2
        let byPath = try Demuxer(url: fixture.url)
        let descriptor = try unlinkedCopy(of: fixture.url)
        defer { try? descriptor.close() }
        let throughDescriptor = try Demuxer(reading: descriptor, name: fixture.name)
        // When both seek to the middle and decode
        let expected = firstFrame(after: target, in: byPath)
        let seen = firstFrame(after: target, in: throughDescriptor)
        // Then they land on the same frame, and an audio file near the middle
        #expect(seen == expected)
        if case .audio = fixture.expectation, case .frames(let start?, let count) = seen {
            #expect(abs(start - target) < 0.3, "landed at \(start) s")
            #expect(count == 5)
        }
    }

    @Test("a cut-short MP4 read through a descriptor says where its media stops, as by path (AVSEEK_SIZE)")
    func cutShort() async throws {
        // Given an MP4 with its index up front, cut to 60 % of its bytes
        let clip = try await Fixture.make("m4a", ["-f", "lavfi", "-i", "sine=frequency=440:duration=4:sample_rate=48000",
                                            "-c:a", "aac", "-movflags", "+faststart"])
        let handle = try FileHandle(forWritingTo: clip)
        try handle.truncate(atOffset: try handle.seekToEnd() * 6 / 10)
        try handle.close()
        // When it is opened by path and through a descriptor of a copy whose name is gone
        let byPath = try Demuxer(url: clip)
        let descriptor = try unlinkedCopy(of: clip)
        defer { try? descriptor.close() }
        let throughDescriptor = try Demuxer(reading: descriptor, name: clip.lastPathComponent)
        // Then both find the first sample past the end of the file, at the same time
        let missing = try #require(throughDescriptor.firstMissingSample())
        #expect(missing == byPath.firstMissingSample())
        #expect(missing > 1.5 && missing < 3.5, "missing from \(missing) s")
    }

    @Test("an empty, damaged or unreadable descriptor is an FFmpegError, not a crash")
    func refusals() throws {
        // Given an empty file, random bytes, a directory, a write-only descriptor and a closed one
        let folder = temporaryFolder()
        let empty = folder.appendingPathComponent("empty.m4a")
        try Data().write(to: empty)
        let random = folder.appendingPathComponent("random.mp4")
        try Data((0..<65_536).map { _ in UInt8.random(in: 0...255) }).write(to: random)
        for (url, expected) in [(empty, nil), (random, nil), (folder, EISDIR)] as [(URL, Int32?)] {
            let descriptor = try FileDescriptor.open(url.path, .readOnly, options: [.closeOnExec])
            defer { try? descriptor.close() }
            // When each is opened as media, Then FFmpeg refuses it
            let error = #expect(throws: FFmpegError.self) { try Demuxer(reading: descriptor, name: url.lastPathComponent) }
            if let expected { #expect(error?.posixErrno == expected) }
        }
        let writeOnly = try FileDescriptor.open(random.path, .writeOnly, options: [.closeOnExec])
        defer { try? writeOnly.close() }
        let notReadable = #expect(throws: FFmpegError.self) { try Demuxer(reading: writeOnly, name: "random.mp4") }
        #expect(notReadable?.posixErrno == EBADF)
        let closed = try FileDescriptor.open(random.path, .readOnly, options: [.closeOnExec])
        try closed.close()
        let notOpen = #expect(throws: FFmpegError.self) { try Demuxer(reading: closed, name: "random.mp4") }
        #expect(notOpen?.posixErrno == EBADF)
    }

    @Test("a playlist read through a descriptor opens none of the files it names")
    func nestedOpensRefused() async throws {
        // Given an HLS playlist and its segment beside it, which FFmpeg plays by path
        let playlist = try await Fixture.make("m3u8", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", "-f", "hls"])
        #expect(Opened { () throws(FFmpegError) in try Demuxer(url: playlist) }.info?.audioStream != nil)
        // When the playlist is read through a descriptor
        let descriptor = try FileDescriptor.open(playlist.path, .readOnly, options: [.closeOnExec])
        defer { try? descriptor.close() }
        // (named by its full path, so that a segment opened by a name would be found)
        let opened = Opened { () throws(FFmpegError) in try Demuxer(reading: descriptor, name: playlist.path) }
        // Then its segment is not read: no audio comes of it
        #expect(opened.info?.audioStream == nil, "\(opened)")
    }
}
