import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Video recording's promises about time, in `scripts/test`'s pass alone with the other
/// `DeadlineTests` (one test at a time): a 2-core machine running 30 tests at once would measure
/// its scheduler, not cravey.
@Suite("Video deadlines", .serialized, .temporaryFiles)
struct VideoDeadlineTests {
    let library = temporaryLibrary()

    @Test("no camera at /dev/video9: exit 69 within 2 s, naming it and offering the audio recorder; nothing in Recordings/")
    func noCamera() async throws {
        let microphone = try await VirtualMicrophone()
        let started = Date()
        let result = try await Cravey.run(["record", "--video", "--camera", "/dev/video9", "--seconds", "3",
                                           "--library", library.path, "--device", microphone.monitor])
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 2, "took \(elapsed) s")
        #expect(result.status == 69)
        #expect(result.error.contains("/dev/video9") && result.error.contains("cravey record"), "\(result.error)")
        let recordings = library.appendingPathComponent("Recordings")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: recordings.path)) ?? []
        #expect(left.filter { $0 != "Thumbnails" }.isEmpty, "left behind: \(left)")
        #expect(try await listed(library).isEmpty)
    }

    @Test("60 s from the test camera: the video and audio tracks start and end within 40 ms of each other")
    func staysInSync() async throws {
        // Given a tone playing into the virtual microphone
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own

        // When 60 s are recorded at the default size and rate
        let result = try await Cravey.run(["record", "--video", "--camera", "test", "--seconds", "60",
                                           "--library", library.path, "--device", microphone.monitor])
        #expect(result.status == 0, "\(result.error)")

        // Then both tracks start and end together
        let row = try #require(try await listed(library).first)
        let streams = try await Witness.streams(library.appendingPathComponent(row.filePath))
        let video = try #require(streams.first { $0.kind == "video" })
        let audio = try #require(streams.first { $0.kind == "audio" })
        #expect(abs(video.startTime - audio.startTime) <= 0.04, "starts \(video.startTime) s, \(audio.startTime) s")
        #expect(abs(video.end - audio.end) <= 0.04, "ends \(video.end) s, \(audio.end) s")
        #expect(abs(video.duration - 60) <= 0.1 && video.width == 1280 && video.height == 720)
        #expect(abs((video.frameRate ?? 0) - 30) <= 0.1)
        // The camera kept up: few pictures dropped or repeated to hold the rate
        let counts = try #require(result.error.firstMatch(of: /\((\d+) dropped, (\d+) repeated\)/))
        #expect(Int(counts.1)! + Int(counts.2)! <= 90, "\(result.error)")
    }
}
