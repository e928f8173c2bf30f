import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

@Suite("Importing media files", .temporaryFiles)
struct ImportTests {
    let library: RecordingLibrary

    init() async throws {
        library = try await Fixture.library(clips: 0)
    }

    func importing(_ url: URL, title: String = "Imported") throws -> Recording {
        try Importer.importFile(url, into: library.store, metadata: try RecordingMetadata(title: title))
    }

    func file(_ recording: Recording) throws -> URL {
        library.fileURL(recording.filePath)
    }

    @Test("H.264/AAC .mp4 is copied and gets a thumbnail")
    func copiesVideo() async throws {
        let source = try await Fixture.video(seconds: 2)
        let recording = try importing(source)
        #expect(recording.type == .video && recording.filePath.hasSuffix(".mp4"))
        let thumbnail = try #require(recording.thumbnailPath)
        #expect(FileManager.default.fileExists(atPath: library.url.appendingPathComponent(thumbnail).path))
        #expect(abs(recording.duration - 2) < 0.1)
        #expect(try MediaProbe.info(of: .outside(try file(recording))).videoStream?.codecName == "h264")
    }

    @Test("audio whose timestamps jump an hour ahead is joined up at the jump, not filled with an hour of silence")
    func joinsAudioTimestampJumps() async throws {
        // Given: 2 s of video and sound whose audio timestamps leap forward by an hour after 0.85 s
        let source = try await Fixture.make("mkv", ["-f", "lavfi", "-i", "testsrc=duration=2:size=160x120:rate=25",
                                              "-f", "lavfi", "-i", "sine=frequency=440:duration=2:sample_rate=48000",
                                              "-c:v", "mpeg4", "-c:a", "aac",
                                              "-bsf:a", "setts=ts=if(gte(N\\,40)\\,PTS+3600000\\,PTS)"])
        #expect((try MediaProbe.info(of: .outside(source)).containerDuration ?? 0) > 3600, "the container says the hour")

        // When it is imported
        let started = Date()
        let recording = try importing(source)

        // Then it is the 2 s there are, quickly, audio as long as video
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(abs(recording.duration - 2) <= 0.15, "stored as \(recording.duration) s")
        let info = try MediaProbe.info(of: .outside(try file(recording)))
        let video = try #require(info.videoStream?.duration), audio = try #require(info.audioStream?.duration)
        #expect(abs(video - audio) <= 0.1, "video \(video) s, audio \(audio) s")
    }

    @Test("every playable file in Media/ imports as the clip it is, at its length", arguments: MediaFixture.playable)
    func importsEveryFixture(fixture: MediaFixture) throws {
        // Given: a fixture; When: it is imported
        let recording = try importing(fixture.url)
        // Then: a clip of its type and length, with a thumbnail when it is video
        let seconds = try #require(fixture.seconds)
        if case .video = fixture.expectation {
            #expect(recording.type == .video && recording.thumbnailPath != nil)
        } else {
            #expect(recording.type == .audio && recording.thumbnailPath == nil)
        }
        #expect(abs(recording.duration - seconds) <= max(0.15, seconds * 0.02), "stored as \(recording.duration) s")
        #expect(try MediaProbe.info(of: .outside(try file(recording))).streams.contains { $0.kind == (recording.type == .video ? .video : .audio) })
    }

    @Test("every malformed file in Media/ is refused as undecodable, and nothing is stored", arguments: MediaFixture.malformed)
    func refusesEveryMalformedFixture(fixture: MediaFixture) throws {
        #expect { try importing(fixture.url) } throws: {
            guard let error = $0 as? CraveyError else { return false }
            return error.kind == .undecodableMedia && error.message.contains("Nothing was stored")
        }
        #expect(try library.count() == 0 && library.store.storedFiles().isEmpty)
    }

    @Test("Media/ holds exactly the fixtures MediaFixture.all lists (and its README)")
    func fixtureListIsComplete() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: MediaFixture.folder.path)
        #expect(Set(names) == Set(MediaFixture.all.map(\.name) + ["README.md"]))
    }

    /// A PCM WAV file of `frames` samples a channel, each sample a ramp of its own.
    static func wave(channels: Int, frames: Int, rate: Int, bytesPerSample: Int) -> Data {
        var data = Data()
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        let size = channels * frames * bytesPerSample
        data.append(contentsOf: Array("RIFF".utf8)); put(UInt32(36 + size)); data.append(contentsOf: Array("WAVEfmt ".utf8))
        put(UInt32(16)); put(UInt16(1)); put(UInt16(channels)); put(UInt32(rate)); put(UInt32(rate * channels * bytesPerSample))
        put(UInt16(channels * bytesPerSample)); put(UInt16(bytesPerSample * 8))
        data.append(contentsOf: Array("data".utf8)); put(UInt32(size))
        for index in 0..<(channels * frames) {
            if bytesPerSample == 1 { data.append(UInt8(128 + (index * 37) % 100)) } else { put(Int16((index * 997) % 20_000 - 10_000)) }
        }
        return data
    }

    @Test("a WAV that holds no sample is refused saying that none of its audio decodes, and nothing is stored")
    func refusesSoundlessWave() async throws {
        let source = temporaryFolder().appendingPathComponent("empty.wav")
        try Self.wave(channels: 1, frames: 0, rate: 8_000, bytesPerSample: 2).write(to: source)
        #expect {
            try importing(source)
        } throws: { error in
            (error as? CraveyError)?.kind == .undecodableMedia && "\(error)".contains("no frame of its audio decodes")
        }
        #expect(try library.recordings().isEmpty)
    }

    @Test("truncated MP4s, an empty file, random bytes and a still picture are undecodable, and nothing is stored")
    func rejectsGarbage() async throws {
        let whole = try Data(contentsOf: try await Fixture.video(seconds: 2))       // index at the end
        let faststart = try Data(contentsOf: try await Fixture.video(seconds: 2, extra: ["-movflags", "+faststart"]))
        let folder = temporaryFolder()
        var bad: [URL] = []
        for (name, bytes) in [("truncated.mp4", whole.prefix(whole.count / 2)),
                              ("cut-faststart.mp4", faststart.prefix(600)),
                              ("half-faststart.mp4", faststart.prefix(faststart.count / 2)),
                              ("empty.m4a", Data()),
                              ("random.mp3", Data((0..<65_536).map { _ in UInt8.random(in: 0...255) }))] {
            let url = folder.appendingPathComponent("\(UUID().uuidString)-\(name)")
            try bytes.write(to: url)
            bad.append(url)
        }
        bad.append(try await Fixture.make("png", ["-f", "lavfi", "-i", "testsrc=size=64x64", "-frames:v", "1"]))
        for url in bad {
            #expect { try importing(url) } throws: {
                guard let error = $0 as? CraveyError else { return false }
                return error.kind == .undecodableMedia && error.message.contains("Cannot import \(url.path)")
                    && error.message.contains("Nothing was stored")
            }
        }
        #expect(try library.count() == 0)
        #expect(library.store.storedFiles().isEmpty, "left behind: \(library.store.storedFiles())")
        #expect { try importing(folder.appendingPathComponent("no-such-file.wav")) } throws: {
            ($0 as? CraveyError)?.kind == .notFound
        }
    }

    @Test("a named pipe with no writer, a directory, /dev/zero and a socket are refused at once with invalid input, naming what they are; links are followed")
    func refusesWhatIsNotAFile() async throws {
        // Given: a named pipe nobody writes to, a link to it, a directory, a character device and a socket
        let folder = temporaryFolder()
        let pipe = folder.appendingPathComponent("talk.m4a")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        let link = folder.appendingPathComponent("link.mp3")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: pipe)
        let socket = try Self.listeningSocket(at: folder.appendingPathComponent("socket.wav"))
        defer { close(socket) }
        let refused = [(pipe, "a named pipe (FIFO)"), (link, "a named pipe (FIFO)"), (folder, "a directory"),
                       (URL(fileURLWithPath: "/dev/zero"), "a character device"),
                       (folder.appendingPathComponent("socket.wav"), "a socket")]
        for (url, kind) in refused {
            // When: importing it, with 5 s to answer
            let answer = try await importing(url, within: 5, unblocking: pipe)
            // Then: it is refused at once as invalid input (exit 64), saying what it is and what to do
            guard let (outcome, seconds) = answer, case .failure(let error) = outcome else {
                Issue.record("importing \(url.path): \(answer.map { "\($0.0)" } ?? "no answer within 5 s")")
                continue
            }
            #expect(seconds < 1, "\(url.path) took \(seconds) s")
            #expect(error.kind == .invalidInput, "\(url.path): \(error.message)")
            #expect(error.message.contains("Cannot import \(url.path): it is \(kind)"), "\(error.message)")
            #expect(error.message.contains("Nothing was stored"), "\(error.message)")
        }
        #expect(try library.count() == 0 && library.store.storedFiles().isEmpty)
        // A link to a regular file is followed and imports; a link to nothing is a missing file.
        let audio = folder.appendingPathComponent("audio-link.m4a")
        try FileManager.default.createSymbolicLink(at: audio, withDestinationURL: try await Fixture.audio(seconds: 1))
        #expect(try importing(audio).type == .audio)
        let dangling = folder.appendingPathComponent("dangling.m4a")
        try FileManager.default.createSymbolicLink(at: dangling, withDestinationURL: folder.appendingPathComponent("gone.m4a"))
        #expect { try importing(dangling) } throws: { ($0 as? CraveyError)?.kind == .notFound }
    }

    @Test("the title from a file's name: no extension, control characters as spaces, past 40 characters cut at a word with …", arguments: [
        ("coach-talk.mp3", "coach-talk"),
        ("archive.tar.gz", "archive.tar"),
        ("  breathe  .wav", "breathe"),
        ("no extension", "no extension"),
        ("tab\there\u{7}\u{85}and\r\nthere.wav", "tab here and there"),
        ("coach talk about breathing before the big race 2026.mp3", "coach talk about breathing before the…"),
        ("coach-talk-about-breathing-before-the-big-race.mp3", "coach-talk-about-breathing-before-the…"),
        ("morning_walk_by_the_river_with_the_dogs_and_kids.m4a", "morning_walk_by_the_river_with_the_dogs…"),
        ("a title of forty characters, not shorter.m4a", "a title of forty characters, not shorter"),
        ("Pneumonoultramicroscopicsilicovolcanoconiosis is long.mp3", "Pneumonoultramicroscopicsilicovolcanoco…"),
        ("🧘🏽‍♀️ breathing 🫁 with the coach before the race 🏁.m4a", "🧘🏽‍♀️ breathing 🫁 with the coach before the…"),
    ])
    func titleFromFileName(name: String, title: String) throws {
        // Given: a file of that name; When: its import title is derived
        let derived = RecordingMetadata.title(forFileAt: URL(fileURLWithPath: "/tmp/\(name)"))
        // Then: it reads as expected, fits the limit and passes as a title
        #expect(derived == title)
        #expect((derived?.count ?? 0) <= RecordingMetadata.maxTitleLength)
        #expect(try RecordingMetadata(title: derived).title == derived)
    }

    @Test("a file name that is only an extension, or blank, gives no title: the automatic one is used", arguments: [".m4a", "   .mp3", "\u{1}\u{2}.wav"])
    func noTitleFromFileName(name: String) {
        #expect(RecordingMetadata.title(forFileAt: URL(fileURLWithPath: "/tmp/\(name)")) == nil)
    }

    /// Imports `url` on a thread of its own and waits at most `seconds` for its answer and how
    /// long the import took on that thread (nil: no answer). An import still waiting then is freed
    /// by opening `pipe` for writing and closing it, so a regression fails this test instead of
    /// hanging the suite.
    func importing(_ url: URL, within seconds: Double, unblocking pipe: URL) async throws -> (Result<Recording, CraveyError>, Double)? {
        let outcome = Outcome()
        let library = library
        Thread {
            let started = Date()
            let result: Result<Recording, CraveyError>
            do { result = .success(try Importer.importFile(url, into: library.store, metadata: try RecordingMetadata(title: "Imported"))) }
            catch { result = .failure(error as? CraveyError ?? CraveyError(.other, "\(error)")) }
            let took = Date().timeIntervalSince(started)
            outcome.value.withLock { $0 = (result, took) }
        }.start()
        if try await poll(within: seconds, every: 0.02, { outcome.value.withLock { $0 != nil } }) {
            return outcome.value.withLock { $0 }
        }
        let writer = open(pipe.path, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
        _ = try await poll(within: 10, every: 0.05) { outcome.value.withLock { $0 != nil } }
        return nil
    }

    final class Outcome: Sendable {
        let value = Locked<(Result<Recording, CraveyError>, Double)?>(nil)
    }

    /// A Unix socket bound (and listening) at `url`; the caller closes the returned descriptor.
    static func listeningSocket(at url: URL) throws -> Int32 {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(url.path.utf8CString)
        try #require(path.count <= MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.map { UInt8(bitPattern: $0) }) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(socket >= 0 && bound == 0 && listen(socket, 1) == 0)
        return socket
    }
}
