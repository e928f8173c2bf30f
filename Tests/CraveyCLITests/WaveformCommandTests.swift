import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey waveform` and `kill -USR1` pausing `cravey record`, run as a person runs them: the
/// PNG's pixels, the hand-off to `cravey-media`, a terminal and a pipe. (Its JSON, the refusals
/// `cravey` makes itself and `info`'s sparkline: CraveyCommandsTests' WaveformCommandTests.)
@Suite("cravey waveform", .temporaryFiles)
struct WaveformCommandTests {
    let library = temporaryLibrary()

    /// Imports tone bursts at half, a tenth and nine tenths of full scale; returns the clip's id.
    func importBursts() async throws -> String {
        let source = try await Fixture.toneBursts([0.5, 0.1, 0.9])
        let imported = try await Cravey.run(["import", source.path, "--library", library.path])
        try #require(imported.status == 0, "\(imported.error)")
        return imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The waveform stored beside clip `id`, read as the file it is.
    func stored(_ id: String, type: RecordingType = .audio) throws -> Waveform? {
        let path = library.appendingPathComponent(ClipFiles(id: try #require(RecordingID(id)), type: type).file(.waveform)!.path)
        return (try? Data(contentsOf: path)).flatMap(Waveform.init(audiowaveformData:))
    }

    @Test("the PNG's columns follow the peaks: each column dark from its highest sample's row to its lowest's, on white, 800x250 by default")
    func pictureFollowsPeaks() async throws {
        // Given an imported clip and its stored waveform
        let id = try await importBursts()
        let waveform = try #require(try stored(id))

        // When it is drawn, at the default size and at 300x100
        for (size, arguments) in [((800, 250), [String]()), ((300, 100), ["--width", "300", "--height", "100"])] {
            let png = temporaryFolder().appendingPathComponent("wave-\(size.0).png")
            let drawn = try await Cravey.run(["waveform", id, "--output", png.path, "--library", library.path] + arguments)
            try #require(drawn.status == 0, "\(drawn.error)")

            // Then ffmpeg reads a PNG of that size, private, whose dark pixels in each column
            // run from the row of the highest sample under it to the row of the lowest
            #expect(try FileManager.default.attributesOfItem(atPath: png.path)[.posixPermissions] as? Int == 0o600)
            let (width, height) = size
            let raw = temporaryFolder().appendingPathComponent("wave-\(width).gray")
            let decoded = try await run("ffmpeg", ["-v", "error", "-i", png.path, "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
            try #require(decoded.status == 0, "\(decoded.error)")
            let pixels = [UInt8](try Data(contentsOf: raw))
            try #require(pixels.count == width * height)
            #expect(Set(pixels) == [0x3A, 0xFF])
            for (x, column) in waveform.columns(width).enumerated() {
                let dark = (0..<height).filter { pixels[$0 * width + x] == 0x3A }
                #expect(dark.first == Waveform.row(of: column.max, height: height)
                        && dark.last == Waveform.row(of: column.min, height: height)
                        && dark.count == dark.last! - dark.first! + 1, "column \(x): rows \(dark.first ?? -1)...\(dark.last ?? -1)")
            }
        }
    }

    @Test("a stored waveform is written by cravey alone, without FFmpeg; a clip without one is handed to cravey-media, which makes and keeps it")
    func handOff() async throws {
        // Given a clip saved as before waveforms were kept, and cravey copied where no cravey-media is
        let fixture = try await Fixture.library(titles: ["Old"])
        let id = try #require(try fixture.recordings().first).id
        let alone = temporaryFolder().appendingPathComponent("alone")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        // Copied by cp, not by this process: a copy open for writing here is inherited by any
        // process another test starts meanwhile, and executing it fails with ETXTBSY until that
        // process ends (seen in a parallel run).
        let copied = try await run("cp", [Cravey.executable, alone.appendingPathComponent("cravey").path])
        try #require(copied.status == 0, "\(copied.error)")
        let arguments = ["waveform", id.description, "--json", "--library", fixture.url.path]

        // Then cravey alone cannot make it, and says what is missing
        let without = try await run(alone.appendingPathComponent("cravey").path, arguments, environment: Cravey.environment())
        #expect(without.status == 1 && without.error.contains("cravey-media"), "\(without.error)")

        // When cravey (with cravey-media beside it) is asked: it is made, printed and kept
        let made = try await Cravey.run(arguments)
        #expect(made.status == 0, "\(made.error)")
        let row = try #require(try fixture.recording(id))
        let kept = try #require(fixture.analysis.storedWaveform(of: row))
        #expect(made.output == String(decoding: kept.audiowaveformJSON(), as: UTF8.self) + "\n")

        // And from then on cravey alone writes it
        let again = try await run(alone.appendingPathComponent("cravey").path, arguments, environment: Cravey.environment())
        #expect(again.status == 0 && again.output == made.output, "\(again.error)")
    }

    @Test("a PNG for a terminal is refused (64), to a pipe written; a video without sound 64; a clip whose media and waveform are gone 66 (the other refusals: CraveyCommandsTests' WaveformCommandTests)")
    func refusals() async throws {
        let id = try await importBursts()
        let terminal = try await Cravey.runOnTerminal(["waveform", id, "--library", library.path])
        #expect(terminal.status == 64 && terminal.output.contains("Refusing to write a PNG to the terminal"), "\(terminal.output)")
        let piped = try await Cravey.run(["waveform", id, "--library", library.path])
        #expect(piped.status == 0 && piped.output.hasPrefix("\u{FFFD}PNG") && piped.output.contains("IEND"), "a PNG to a pipe")

        let silent = try await Fixture.make("mp4", ["-f", "lavfi", "-i", "testsrc=duration=1:size=160x120:rate=25",
                                              "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        let video = try await Cravey.run(["import", silent.path, "--library", library.path])
        let noSound = try await Cravey.run(["waveform", video.output.trimmingCharacters(in: .whitespacesAndNewlines), "--json",
                                            "--library", library.path])
        #expect(noSound.status == 64 && noSound.error.contains("has no sound"), "\(noSound.error)")

        let row = try #require(try await listed(library).first { $0.id.description == id })
        try FileManager.default.removeItem(at: library.appendingPathComponent(row.filePath))
        try FileManager.default.removeItem(at: library.appendingPathComponent(ClipFiles(id: row.id, type: .audio).file(.waveform)!.path))
        let missing = try await Cravey.run(["waveform", id, "--json", "--library", library.path])
        #expect(missing.status == 66, "\(missing.error)")
    }

    @Test("kill -USR1 pauses cravey record and again resumes it: the clip is the --seconds recorded, the paused time left out")
    func pauseBySignal() async throws {
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own
        let terminal = try Cravey.startOnTerminal(["record", "--seconds", "3", "--json", "--no-preview", "--library", library.path,
                                                   "--device", microphone.monitor])
        let pid = terminal.process.processIdentifier
        let started = ContinuousClock.now
        #expect(try await offPool { terminal.waitUntilShown(within: 20) { (capturedSeconds(shownOn: $0) ?? 0) >= 1 } })
        kill(pid, SIGUSR1)
        #expect(try await offPool { terminal.waitUntilShown(within: 10) { $0.contains("Paused at") } })
        // Time is the subject: 1.5 s paused are to be left out of the clip.
        try await Task.sleep(for: .seconds(1.5))
        kill(pid, SIGUSR1)
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0, "\(shown)")
        #expect(shown.contains("Paused at 0:0") && shown.contains("Resumed at 0:0"), "\(shown)")
        #expect(ContinuousClock.now - started >= .seconds(4.5), "3 s recorded and 1.5 s paused")
        let row = try #require(try await listed(library).first)
        #expect(row.duration == 3.0)
    }
}
