import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey waveform` and `kill -USR1` pausing `cravey record`, run as a person runs them: the
/// hand-off to `cravey-media`, a terminal and a pipe. (Its JSON, the PNG's pixels, its other
/// refusals and `info`'s sparkline: CraveyCommandsTests' WaveformCommandTests.)
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

    @Test("a PNG for a terminal is refused (64), to a pipe written (the other refusals: CraveyCommandsTests' WaveformCommandTests)")
    func refusals() async throws {
        let id = try await importBursts()
        let terminal = try await Cravey.runOnTerminal(["waveform", id, "--library", library.path])
        #expect(terminal.status == 64 && terminal.output.contains("Refusing to write a PNG to the terminal"), "\(terminal.output)")
        let piped = try await Cravey.run(["waveform", id, "--library", library.path])
        #expect(piped.status == 0 && piped.output.hasPrefix("\u{FFFD}PNG") && piped.output.contains("IEND"), "a PNG to a pipe")
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
