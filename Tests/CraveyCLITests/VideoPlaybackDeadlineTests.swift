import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// A video player's promises about time, in `scripts/test`'s pass alone with the other
/// `DeadlineTests` (one test at a time): the picture in step with its sound, and a display that
/// never answers not holding the sound back for long.
@Suite("Video playback deadlines", .serialized, .temporaryFiles)
struct VideoPlaybackDeadlineTests {
    @Test("a picture shows within 20 ms of its sound: a white picture and a click every second, the window and the sink recorded together")
    func pictureMeetsItsSound() async throws {
        // Given a 14 s video, black but for a white picture (one frame) and a 10 ms click at each second
        let display = try await VirtualDisplay()
        let sink = try await VirtualMicrophone()
        let clip = try await Fixture.make("mp4", [
            "-f", "lavfi", "-i", "color=black:s=320x240:r=30:d=14,drawbox=enable='lt(mod(t\\,1)\\,0.03)':color=white:t=fill",
            "-f", "lavfi", "-i", "aevalsrc='if(lt(mod(t\\,1)\\,0.01)\\,sin(2*PI*1000*t)\\,0)':s=48000:d=14",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "30", "-c:a", "aac", "-b:a", "128k", "-shortest"])
        let (path, id) = try await importedClip(clip, title: "Flash")
        // The sink keeps rendering in 20 ms blocks meanwhile, as a sound card does.
        let keeper = try await SinkCapture.start(sink: sink.sinkName)
        defer { withExtendedLifetime(keeper) {} }  // its deinit ends it, not waiting

        // When it plays, a spot in the middle of its window and the sink recorded together for 12 s
        // (x11grab may take 2 s to start on a busy machine: at least 7 flashes are still seen)
        let play = try LivePlay(["play", id, "--library", path, "--device", sink.sinkName, "--no-count"], environment: display.environment)
        let window = try #require(try await display.window(titled: "cravey"))  // discreet: the window says "cravey"
        let capture = try ScreenSoundCapture(display: display, region: (window.x + window.width / 2 - 8, window.y + window.height / 2 - 8, 16, 16),
                                             sink: sink.sinkName, seconds: 12)
        let (flashes, clicks) = try await offPool { try capture.finish() }
        let (status, played, error) = try await play.finish()

        // Then each white picture showed within 20 ms of its click (positive: the picture after the sound)
        #expect(status == 0 && played?.picturesDropped == 0, "\(error) \(String(describing: played))")
        // Only after the recording's first second: the pulse input's first packets carry the
        // time they were read, not heard (one run paired the first flash 234 ms off, the rest
        // within 2 ms).
        let settled = min(flashes.first ?? 0, clicks.first ?? 0) + 1
        // A flash paired only when its own click, a few ms away, is past `settled` too: a flash
        // just after it whose click fell just before was once paired with the next click (-996 ms).
        let offsets = flashes.filter { $0 > settled + 0.5 }.compactMap { flash in
            clicks.filter { $0 > settled }.min { abs($0 - flash) < abs($1 - flash) }.map { (flash - $0) * 1000 }
        }
        // (None paired, as under a load that kept x11grab from starting, is a failure, not a crash of the whole run.)
        try #require(!offsets.isEmpty, "no flash paired with a click: flashes \(flashes), clicks \(clicks)")
        let median = offsets.sorted()[offsets.count / 2]
        let worst = offsets.max { abs($0) < abs($1) } ?? .infinity
        print("picture against sound, ms: \(offsets.map { String(format: "%.1f", $0) }.joined(separator: " ")); median \(String(format: "%.1f", median)), worst \(String(format: "%.1f", worst))")
        #expect(offsets.count >= 7, "flashes at \(flashes), clicks at \(clicks)")
        #expect(abs(median) <= 20 && abs(worst) <= 20, "offsets \(offsets)")
    }

    @Test("a display that takes the connection and never answers: after 5 s the sound plays, saying why, and exits 0")
    func displayThatNeverAnswers() async throws {
        // Given an X display that listens and never answers (a socket nobody reads)
        let number = Int.random(in: 40_000...50_000)
        let socket = "/tmp/.X11-unix/X\(number)"
        let listener = TestProcess()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        // It holds the socket until the test closes its stdin (or the test process goes), not
        // for a time: SIGTERM is unblocked first (the test's threads block it, and a child
        // inherits that), so terminate() ends it too.
        listener.arguments = ["-c", "import os, signal, socket, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM]); os.makedirs('/tmp/.X11-unix', mode=0o1777, exist_ok=True); s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); print('ready', flush=True); sys.stdin.read()", socket]
        let ready = Pipe(), hold = Pipe()
        listener.standardOutput = ready
        listener.standardInput = hold
        listener.standardError = FileHandle.nullDevice
        try listener.run()
        defer {
            try? hold.fileHandleForWriting.close()
            listener.terminate()
            try? FileManager.default.removeItem(atPath: socket)
        }
        let readyLine = ready.fileHandleForReading
        _ = try await offPool { readyLine.availableData }
        let sink = try await VirtualMicrophone()
        let (path, id) = try await importedClip(try await Fixture.video(seconds: 2, size: "160x120"), title: "Hanging")
        // A running sink starts the sound at once (an idle null sink adds 1.5 s of its own).
        let keeper = try await SinkCapture.start(sink: sink.sinkName)
        defer { withExtendedLifetime(keeper) {} }  // its deinit ends it, not waiting

        // When a video plays on it
        let started = ContinuousClock.now
        let play = try LivePlay(["play", id, "--library", path, "--device", sink.sinkName], environment: ["DISPLAY": ":\(number)"])
        let (status, played, error) = try await play.finish()
        let elapsed = (ContinuousClock.now - started) / .seconds(1)

        // Then it gave up on the window after 5 s, played the sound and counted it
        #expect(status == 0, "\(error)")
        #expect(error.contains("did not answer within 5 s") && error.contains("Playing its sound only"), "\(error)")
        #expect(played?.completed == true && played?.counted == true && played?.picturesShown == nil, "\(String(describing: played))")
        #expect(elapsed < 5 + 2 + 1.5, "took \(elapsed) s")
    }
}
