import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey play --json` running, its lines written to a file the test reads as they come.
struct LivePlay {
    /// One line `--json` printed: an event, or the play at the end.
    struct Line: Decodable, Sendable {
        struct Play: Decodable, Sendable {
            var completed: Bool
            var counted: Bool
            var position: Double
            var picturesShown: Int?
            var picturesDropped: Int?
        }
        var state: String?
        var position: Double?
        var play: Play?
    }

    let process = TestProcess()
    let output = temporaryFolder().appendingPathComponent("play-\(UUID().uuidString).jsonl")
    let errors = temporaryFolder().appendingPathComponent("play-\(UUID().uuidString).err")

    init(_ arguments: [String], environment: [String: String]) throws {
        for file in [output, errors] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        process.executableURL = URL(fileURLWithPath: Cravey.executable)
        process.arguments = arguments + ["--json"]
        process.environment = Cravey.environment(environment)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
    }

    /// The lines printed so far.
    var lines: [Line] { Self.lines(output) }

    /// The events so far where the state changed or the position jumped, numbered, for messages.
    var history: String {
        var previous: Line?
        return lines.enumerated().compactMap { index, line in
            defer { previous = line }
            guard let position = line.position else { return "\(index): the play" }
            let jumped = abs(position - (previous?.position ?? 0)) > 0.3
            return line.state != previous?.state || jumped ? "\(index): \(line.state ?? "") \(String(format: "%.2f", position))" : nil
        }.joined(separator: ", ")
    }

    /// The first event after the first `after` lines that `matches`, once printed (within 10 s).
    func event(after count: Int = 0, _ matches: @escaping @Sendable (Line) -> Bool) async throws -> Line {
        let output = output
        guard try await poll(within: 10, every: 0.02, {
            Self.lines(output).dropFirst(count).contains(where: matches)
        }) else { throw TestFailure("no such event after line \(count) of: \(history)") }
        return try #require(lines.dropFirst(count).first(where: matches))
    }

    /// Sends `key` to `window`, then waits for the first event after it that `matches`.
    @discardableResult
    func press(_ key: String, on display: VirtualDisplay, in window: VirtualDisplay.Window,
               then matches: @escaping @Sendable (Line) -> Bool) async throws -> Line {
        let before = lines.count
        try await display.press(key, in: window)
        return try await event(after: before, matches)
    }

    private static func lines(_ output: URL) -> [Line] {
        ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n")
            .compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    }

    /// Waits for the end; returns the exit status, the play (the last line) and stderr.
    func finish() async throws -> (status: Int32, play: Line.Play?, error: String) {
        await exit(of: process)
        return (process.terminationStatus, lines.last?.play, try String(contentsOf: errors, encoding: .utf8))
    }
}

/// Imports `clip` titled `title`; returns the library's path and the clip's id.
func importedClip(_ clip: URL, title: String) async throws -> (path: String, id: String) {
    let folder = temporaryLibrary()
    let result = try await Cravey.run(["import", "--library", folder.path, "--title", title, clip.path])
    #expect(result.status == 0, "\(result.error)")
    return (folder.path, result.output.trimmingCharacters(in: .whitespacesAndNewlines))
}

/// A video's window, from `cravey play` run as the built binary on a headless X server of the
/// test's own (Xvfb): the window found by its title, the screen read back (x11grab), keys sent
/// (xdotool), the sink kept running and its sound recorded. Here, not in a parallel suite: each
/// test plays in real time, and counts the pictures dropped.
extension PlayCommandTests {
    /// Frame `index` of the video at `url` as FFmpeg decodes it, turned upright, in 8-bit RGB.
    func decodedFrame(_ index: Int, of url: URL) async throws -> [UInt8] {
        let raw = temporaryFolder().appendingPathComponent("frame-\(index).rgb")
        let decoded = try await run("ffmpeg", ["-v", "error", "-y", "-i", url.path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1",
                                         "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
        guard decoded.status == 0 else { throw TestFailure("ffmpeg could not decode frame \(index): \(decoded.error)") }
        return Array(try Data(contentsOf: raw))
    }

    /// Then: the window shows the frame at `position` of a 25 fps video, as FFmpeg decodes it
    /// (within `seconds`: a picture decoded from a keyframe takes a moment): at least 25 dB PSNR
    /// (the renderer's colour conversion and chroma upsampling are not libswscale's: the right
    /// frame measured 29.5 dB, its neighbours 19), and closer to it than to the frames either side
    /// (either of two within 2 ms of their boundary).
    func expectShowsFrame(at position: Double, of url: URL, in window: VirtualDisplay.Window,
                          on display: VirtualDisplay, within seconds: Double = 0) async throws {
        let frame = position * 25
        let index = Int((frame + 1e-9).rounded(.down))
        let nearBoundary = abs(frame - frame.rounded()) < 0.05
        var frames: [[UInt8]] = []
        for neighbour in index - 1...index + 1 { frames.append(try await decodedFrame(max(neighbour, 0), of: url)) }
        let decoded = frames
        // The screen is read again until it shows the frame (no event says a picture was drawn).
        let seen = Locked<(likeness: [Double], best: Int)>(([], -1))
        _ = try await poll(within: seconds, every: 0.1) {
            let shown = try display.screenshot(of: window)
            try #require(decoded.allSatisfy { $0.count == shown.count }, "the window shows \(window.width)x\(window.height)")
            let likeness = decoded.map { psnr(shown, $0) }
            let best = likeness.indices.max { likeness[$0] < likeness[$1] }! + index - 1
            seen.withLock { $0 = (likeness, best) }
            return best == index
        }
        let (likeness, best) = seen.withLock { $0 }
        #expect(likeness[1] >= 25 || (nearBoundary && likeness.max()! >= 25), "PSNR \(likeness) around frame \(index) at \(position) s")
        #expect(best == index || (nearBoundary && abs(best - index) == 1), "frame \(best) shown at \(position) s, not \(index): PSNR \(likeness)")
    }

    @Test("a video opens a window titled cravey (not the clip's title), sized to its pictures turned upright; paused, it shows the frame FFmpeg decodes there, after a jump made while paused too; keys in the window pause, skip, jump and end the play")
    func videoWindow() async throws {
        // Given a 40 s phone video (320x240 pixels, turned 90°: keyframes every 10 s), imported
        let display = try await VirtualDisplay()
        let sink = try await VirtualMicrophone()
        let landscape = try await Fixture.make("mp4", ["-f", "lavfi", "-i", "testsrc2=duration=40:size=320x240:rate=25",
                                                 "-f", "lavfi", "-i", "sine=frequency=440:duration=40", "-shortest",
                                                 "-c:v", "libx264", "-preset", "ultrafast", "-g", "250", "-pix_fmt", "yuv420p", "-c:a", "aac"])
        // FFmpeg 5.1 writes the display matrix on a stream copy only (as scripts/media makes phone-rotated.mp4).
        let clip = try await Fixture.make("mp4", ["-i", landscape.path, "-c", "copy", "-metadata:s:v:0", "rotate=90"])
        let (path, id) = try await importedClip(clip, title: "Upright")
        let opened = try RecordingLibrary(at: URL(fileURLWithPath: path))
        let file = opened.fileURL(try opened.recording(matching: id).filePath)
        let clock = try await SinkCapture.start(sink: sink.sinkName)
        defer { withExtendedLifetime(clock) {} }  // its deinit ends it, not waiting

        // When it plays
        let play = try LivePlay(["play", id, "--library", path, "--device", sink.sinkName], environment: display.environment)

        // Then a window titled "cravey" shows it upright, 240 wide and 320 high
        let window = try #require(try await display.window(titled: "cravey"))
        #expect((window.width, window.height) == (240, 320))

        // When paused at 1 s; then, paused, moved to 30% (12 s: decoded from the keyframe at 10 s);
        // then resumed and paused again
        _ = try await play.event { $0.state == "playing" && ($0.position ?? 0) >= 1 }
        let first = try await play.press("space", on: display, in: window) { $0.state == "paused" }
        // Then each time the window shows the frame FFmpeg decodes there
        try await expectShowsFrame(at: try #require(first.position), of: file, in: window, on: display)
        try await play.press("3", on: display, in: window) { $0.state == "paused" && $0.position == 12 }
        try await expectShowsFrame(at: 12, of: file, in: window, on: display, within: 5)
        try await play.press("space", on: display, in: window) { $0.state == "playing" && ($0.position ?? 0) >= 12.5 }
        let again = try await play.press("space", on: display, in: window) { $0.state == "paused" }
        try await expectShowsFrame(at: try #require(again.position), of: file, in: window, on: display)

        // When resumed, skipped 15 s forward, 15 s back, to the start, and to the end
        try await play.press("space", on: display, in: window) { $0.state == "playing" }
        let skipped = try await play.press("Right", on: display, in: window) { ($0.position ?? 0) >= 26 }
        let back = try #require(skipped.position) - 15
        try await play.press("Left", on: display, in: window) { $0.state == "playing" && (back - 1..<back + 3).contains($0.position ?? 0) }
        try await play.press("Home", on: display, in: window) { $0.state == "playing" && ($0.position ?? 40) < 1.5 }
        try await display.press("End", in: window)

        // Then the play completed and counted, every picture shown since a move in time
        let (status, counted, error) = try await play.finish()
        #expect(status == 0, "\(error)")
        #expect(counted?.completed == true && counted?.counted == true, "\(String(describing: counted))")
        #expect((counted?.picturesShown ?? 0) > 0, "\(String(describing: counted))")
    }

    @Test("q, Escape and closing the window stop the play, which counts as stopped where it stood", arguments: ["q", "Escape", "close"])
    func windowStops(how: String) async throws {
        // Given a 10 s video playing in its window
        let display = try await VirtualDisplay()
        let sink = try await VirtualMicrophone()
        let (path, id) = try await importedClip(try await Fixture.video(seconds: 10, size: "160x120"), title: "Stop me")
        let clock = try await SinkCapture.start(sink: sink.sinkName)
        defer { withExtendedLifetime(clock) {} }  // its deinit ends it, not waiting
        let play = try LivePlay(["play", id, "--library", path, "--device", sink.sinkName], environment: display.environment)
        guard let window = try await display.window(titled: "cravey") else {
            let (status, _, error) = try await play.finish()
            Issue.record("No window within 10 s; the player ended with \(status), saying: \(error)")
            return
        }
        _ = try await play.event { $0.state == "playing" && ($0.position ?? 0) >= 1 }

        // When the key is pressed in it, or it is closed
        if how == "close" { try await display.close(window) } else { try await display.press(how, in: window) }

        // Then the play stopped, counted and not completed, and the window is gone
        let (status, counted, error) = try await play.finish()
        #expect(status == 0, "\(error)")
        #expect(counted?.counted == true && counted?.completed == false && (counted?.position ?? 10) < 5, "\(String(describing: counted))")
        #expect(try await offPool { try display.currentWindow(titled: "cravey") } == nil)
    }

    @Test("every Media/ video, the rotated phone video among them, plays to its end in a window of its shape: every picture shown, none dropped",
          arguments: MediaFixture.playable.filter { if case .video = $0.expectation { true } else { false } })
    func videoFixturePlaysInWindow(_ fixture: MediaFixture) async throws {
        // Given the fixture imported
        let display = try await VirtualDisplay()
        let sink = try await VirtualMicrophone()
        let (path, id) = try await importedClip(fixture.url, title: "Fixture")
        let library = try RecordingLibrary(at: URL(fileURLWithPath: path))
        let file = library.fileURL(try library.recording(matching: id).filePath)
        let stream = try #require(try await Witness.streams(file).first { $0.kind == "video" })
        let frames = try await run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                         "stream=nb_read_frames", "-of", "default=nw=1:nk=1", file.path])
        let pictures = try #require(Int(frames.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let upright = try await run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=rotation",
                                          "-of", "default=nw=1:nk=1", file.path]).output.contains("90")
        let clock = try await SinkCapture.start(sink: sink.sinkName)
        defer { withExtendedLifetime(clock) {} }  // its deinit ends it, not waiting

        // When it plays
        let play = try LivePlay(["play", id, "--library", path, "--device", sink.sinkName, "--no-count"], environment: display.environment)
        let window = try await display.window(titled: "cravey")
        let (status, played, error) = try await play.finish()

        // Then its window had the pictures' shape (turned upright), and showed every one of them to the end
        #expect(status == 0, "\(error)")
        let size = try #require(stream.width.flatMap { width in stream.height.map { (width, $0) } })
        #expect(window.map { ($0.width, $0.height) } ?? (0, 0) == (upright ? (size.1, size.0) : size), "\(String(describing: window))")
        #expect(played?.completed == true, "\(String(describing: played)) \(error)")
        #expect(played?.picturesShown == pictures && played?.picturesDropped == 0, "\(pictures) pictures: \(String(describing: played)) \(error)")
    }

    @Test("without a display, with --no-video, or on a display that refuses, a video plays its sound, says why, and counts; no window opens",
          arguments: ["no display", "--no-video", "refused"])
    func soundOnly(why: String) async throws {
        // Given a 2 s video and a display (unless there is none)
        let display = try await VirtualDisplay()
        let sink = try await VirtualMicrophone()
        let (path, id) = try await importedClip(try await Fixture.video(seconds: 2, size: "160x120"), title: "Sound only")
        let environment = switch why {
        case "no display": ["DISPLAY": "", "WAYLAND_DISPLAY": ""]
        case "refused": ["DISPLAY": ":\(Int.random(in: 30_000...40_000))", "WAYLAND_DISPLAY": ""]
        default: display.environment
        }
        let capture = try await SinkCapture.start(sink: sink.sinkName)

        // When it plays
        let play = try LivePlay(["play", id, "--library", path, "--device", sink.sinkName] + (why == "--no-video" ? ["--no-video"] : []),
                                environment: environment)
        let window = try await display.window(titled: "cravey", within: 1.5)
        let (status, played, error) = try await play.finish()
        let samples = try await offPool { try capture.stop() }

        // Then its sound played to the end and counted, without a window, and stderr said why
        #expect(status == 0, "\(error)")
        #expect(why == "refused" ? error.contains("Cannot open a window on the display") && error.contains("Playing its sound only")
                                 : error.contains("playing its audio track"), "\(error)")
        #expect(window == nil)
        #expect(played?.completed == true && played?.counted == true && played?.picturesShown == nil, "\(String(describing: played))")
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        #expect(abs(sounding.reduce(0) { $0 + $1.duration } - 2) <= 0.3, "\(sounding)")
    }

    @Test("a video without sound plays on the system clock, with no sound server: every picture shown at its time")
    func silentVideoOnSystemClock() async throws {
        // Given the 2 s video without sound, and no sound server
        let display = try await VirtualDisplay()
        let (path, id) = try await importedClip(MediaFixture.named("video-only.mp4").url, title: "Silent")

        // When it plays
        let started = ContinuousClock.now
        let play = try LivePlay(["play", id, "--library", path, "--no-count"],
                                environment: display.environment.merging(["PULSE_SERVER": "unix:/nonexistent/cravey-test/native"]) { $1 })
        let (status, played, error) = try await play.finish()
        let elapsed = (ContinuousClock.now - started) / .seconds(1)

        // Then it took its 2 s, showing its 50 pictures, none dropped
        #expect(status == 0, "\(error)")
        #expect(played?.completed == true && played?.picturesShown == 50 && played?.picturesDropped == 0, "\(String(describing: played))")
        #expect(elapsed >= 2 && elapsed < 4, "took \(elapsed) s")
    }

    @Test("f and a double click turn the window full screen, the picture fitted between black bars, and back (under a window manager: openbox)")
    func fullScreen() async throws {
        // Given a 4:3 video playing in its window, on a 16:10 screen with a window manager
        let display = try await VirtualDisplay(width: 1280, height: 800, windowManager: true)
        let sink = try await VirtualMicrophone()
        let (path, id) = try await importedClip(try await Fixture.video(seconds: 10, size: "160x120"), title: "Full")
        let clock = try await SinkCapture.start(sink: sink.sinkName)
        defer { withExtendedLifetime(clock) {} }  // its deinit ends it, not waiting
        let play = try LivePlay(["play", id, "--library", path, "--device", sink.sinkName, "--no-count"], environment: display.environment)
        let window = try #require(try await display.window(titled: "cravey"))
        #expect((window.width, window.height) == (160, 120))
        func sized(_ size: (Int, Int)) async throws -> VirtualDisplay.Window? {
            let found = Locked<VirtualDisplay.Window?>(nil)
            _ = try await poll(within: 5, every: 0.05) {
                let now = try display.currentWindow(titled: "cravey")
                found.withLock { $0 = now }
                return now.map { ($0.width, $0.height) == size } ?? false
            }
            return found.withLock { $0 }
        }

        // When f is pressed
        try await display.press("f", in: window)

        // Then it fills the screen: the picture 1067 wide in the middle, black beside it
        let full = try #require(try await sized((1280, 800)))
        #expect((full.width, full.height) == (1280, 800))
        // Once the picture is drawn in the new size (the screen read until it is, or 5 s)
        let latest = Locked<[UInt8]>([])
        @Sendable func brightness(_ shot: [UInt8], column: Int) -> Double {
            Double((0..<800).reduce(0) { sum, row in sum + (0..<3).reduce(0) { $0 + Int(shot[(row * 1280 + column) * 3 + $1]) } }) / 2400
        }
        _ = try await poll(within: 5, every: 0.05) {
            let shot = try display.screenshot(of: full)
            latest.withLock { $0 = shot }
            return [200, 640, 1080].allSatisfy { brightness(shot, column: $0) > 40 }
        }
        let shot = latest.withLock { $0 }
        func brightness(column: Int) -> Double { brightness(shot, column: column) }
        #expect(brightness(column: 50) < 5 && brightness(column: 1230) < 5, "the bars: \(brightness(column: 50)), \(brightness(column: 1230))")
        #expect([200, 640, 1080].allSatisfy { brightness(column: $0) > 40 }, "the picture: \([200, 640, 1080].map { brightness(column: $0) })")

        // When it is double-clicked
        try await display.doubleClick(in: full)

        // Then it is back to its own size, and the play goes on to a stop
        let back = try await sized((160, 120))
        #expect(back.map { ($0.width, $0.height) } ?? (0, 0) == (160, 120), "\(String(describing: back))")
        try await display.press("q", in: window)
        let (status, _, error) = try await play.finish()
        #expect(status == 0, "\(error)")
    }
}
