import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// The look back after `cravey record` stops, as a person at a terminal uses it: cravey runs on a
/// real pseudo-terminal, with a tone in the virtual microphone and the sink's monitor listened to.
@Suite("The look back before keeping", .temporaryFiles)
struct PreviewTests {
    let library = temporaryLibrary()
    /// The look back's lines of keys.
    static let keys = "p play · t title · n notes · u purpose · d discard · Enter keep"
    static let shapeKeys = "i/o start/end at the play position · a auto start/end · [ ] hear the first/last 3 s · x cut · c clean noise"

    /// Starts a 1 s recording on a terminal and waits for the look back's keys; it plays back
    /// to `sink` (the default sink, chosen with libpulse's PULSE_SINK).
    private func recorded(microphone: VirtualMicrophone, sink: VirtualMicrophone? = nil, seconds: Int = 1) async throws -> PseudoTerminal {
        let terminal = try Cravey.startOnTerminal(["record", "--seconds", "\(seconds)", "--title", "Before", "--library", library.path,
                                                   "--device", microphone.monitor],
                                                  environment: sink.map { ["PULSE_SINK": $0.sinkName] } ?? [:])
        let shown = try await offPool { terminal.waitUntilShown(within: 90) { $0.contains(Self.keys) && $0.contains(Self.shapeKeys) } }
        #expect(shown, "no look back: \(terminal.output.debugDescription)")
        return terminal
    }

    /// Types `text`, then waits until what the terminal shows after it satisfies `condition`.
    private func step(_ terminal: PseudoTerminal, _ text: String, until condition: @escaping @Sendable (String) -> Bool) async throws {
        let before = terminal.output.utf8.count
        terminal.type(text)
        let reached = try await offPool {
            terminal.waitUntilShown(within: 60) { condition(String(decoding: Array($0.utf8).dropFirst(before), as: UTF8.self)) }
        }
        #expect(reached, "after typing \(text.debugDescription): \(String(decoding: Array(terminal.output.utf8).dropFirst(before), as: UTF8.self).debugDescription)")
    }

    @Test("the clip is saved before the look back, which shows its duration and waveform; t, n and u change its words as edit does (refusals kept out), p plays it uncounted, d asked and declined keeps it, Enter keeps it and prints its id")
    func lookBackAndKeep() async throws {
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own
        let speaker = try await VirtualMicrophone()
        let terminal = try await recorded(microphone: microphone, sink: speaker)
        await tone.stop()
        // Already saved, with the words typed before it started
        let saved = try #require(try await listed(library).first)
        #expect(saved.title == "Before")
        #expect(terminal.output.contains("\"Before\" · 0:01"))
        #expect(terminal.output.contains(where: { "▂▃▄▅▆▇█".contains($0) }), "the tone's waveform")

        try await step(terminal, "t", until: { $0.contains("Title") })
        try await step(terminal, "Breathe in\n", until: { $0.contains("Updated \"Breathe in\"") })
        try await step(terminal, "t", until: { $0.contains("Title") })
        try await step(terminal, String(repeating: "x", count: 41) + "\n", until: { $0.contains("Nothing was changed") })
        try await step(terminal, "u", until: { $0.contains("Purpose") })
        try await step(terminal, "sleepy\n", until: { $0.contains("is not a purpose") && $0.contains("Nothing was changed") })
        try await step(terminal, "u", until: { $0.contains("Purpose") })
        try await step(terminal, "craving\n", until: { $0.contains("Updated") })
        try await step(terminal, "n", until: { $0.contains("Notes") })
        try await step(terminal, "  after a walk \n", until: { $0.contains("Updated") && $0.contains("spaces at the ends of the notes were removed") })

        // Played back to the sink, to its end, not counted
        let capture = try await SinkCapture.start(sink: speaker.sinkName)
        try await step(terminal, "p", until: { $0.contains("Playing (not counted)") })
        try await step(terminal, "", until: { $0.contains(Self.keys) })
        let heard = try await offPool { try capture.stop() }
        #expect(Witness.dominantFrequency(heard) > 400 && Witness.dominantFrequency(heard) < 480, "the clip's tone at the sink")

        try await step(terminal, "d", until: { $0.contains("Discard recording? This cannot be undone. [y/N]") })
        try await step(terminal, "n\n", until: { $0.contains("Not discarded.") })
        terminal.type("\n")
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0, "\(shown)")
        #expect(shown.contains("Kept \"Breathe in\"") && shown.contains(saved.id.description))

        let kept = try #require(try await listed(library).first)
        #expect(kept.id == saved.id && kept.title == "Breathe in" && kept.purpose == .craving && kept.notes == "after a walk")
        #expect(kept.playCount == 0, "a preview is never counted")
    }

    @Test("d and y discard the clip: its row and files are gone and nothing is printed on stdout")
    func discard() async throws {
        let microphone = try await VirtualMicrophone()
        let terminal = try await recorded(microphone: microphone)
        let saved = try #require(try await listed(library).first)
        try await step(terminal, "d", until: { $0.contains("Discard recording? This cannot be undone.") })
        terminal.type("y\n")
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0, "\(shown)")
        #expect(shown.contains("Discarded \"Before\"") && !shown.contains(saved.id.description), "\(shown)")
        #expect(try await listed(library).isEmpty)
        let left = try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Recordings").path)
            .filter { $0.contains(saved.id.description) }
        #expect(left.isEmpty, "\(left)")
    }

    @Test("a title pasted with line breaks is no title, and nothing of the paste is read as keys: the clip is kept as it was; text pasted at the keys is no key")
    func pasteIsNotKeys() async throws {
        let microphone = try await VirtualMicrophone()
        let terminal = try await recorded(microphone: microphone)

        // A title pasted with a discard and its "y" after it: refused, and neither key taken
        try await step(terminal, "t", until: { $0.contains("Title") })
        try await step(terminal, "Calm\nd\ny\n", until: { $0.contains("line break") && $0.contains("Nothing was changed") })
        // Text pasted where a key is awaited, a "d" and an answer in it: no key
        try await step(terminal, "keep it, d\ny\n", until: { $0.contains("Pasted text is not a key") })
        // The discard's question still asks, and no keeps the clip
        try await step(terminal, "d", until: { $0.contains("Discard recording?") })
        try await step(terminal, "n\n", until: { $0.contains("Not discarded.") })
        terminal.type("\n")
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0, "\(shown)")
        #expect(shown.contains("Kept \"Before\""), "\(shown)")
        #expect(try await listed(library).map(\.title) == ["Before"])
    }

    @Test("Ctrl-C, SIGTERM or a closed terminal at the look back keep the clip with its words, the terminal's mode put back")
    func signalsKeep() async throws {
        let microphone = try await VirtualMicrophone()
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            let terminal = try await recorded(microphone: microphone)
            try await step(terminal, "t", until: { $0.contains("Title") })
            try await step(terminal, "Kept by \(signal)\n", until: { $0.contains("Updated") })
            kill(terminal.process.processIdentifier, signal)
            let shown = try await offPool { terminal.waitForExit() }
            #expect(terminal.process.terminationStatus == 0, "signal \(signal): \(shown)")
            #expect(shown.contains("Kept \"Kept by \(signal)\""), "\(shown)")
        }
        let titles = Set(try await listed(library).map(\.title))
        #expect(titles == ["Kept by \(SIGINT)", "Kept by \(SIGTERM)", "Kept by \(SIGHUP)"])
    }

    @Test("--no-preview keeps at once on a terminal, and a script's stdin (not a terminal) sees today's behaviour")
    func noPreview() async throws {
        let microphone = try await VirtualMicrophone()
        let terminal = try Cravey.startOnTerminal(["record", "--seconds", "1", "--no-preview", "--library", library.path,
                                                   "--device", microphone.monitor])
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0 && !shown.contains(Self.keys), "\(shown)")
        let piped = try await Cravey.run(["record", "--seconds", "1", "--library", library.path, "--device", microphone.monitor])
        #expect(piped.status == 0 && !piped.error.contains(Self.keys), "\(piped.error)")
        #expect(try await listed(library).count == 2)
    }

    @Test("trim keys: a proposes the cut from the waveform; i and o while it plays set the start and end, shown on the waveform; [ and ] play the first and last 3 s kept; x asks, then cuts (title and id kept); Enter keeps it")
    func trimKeys() async throws {
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own
        let speaker = try await VirtualMicrophone()
        let terminal = try await recorded(microphone: microphone, sink: speaker, seconds: 3)
        await tone.stop()
        let saved = try #require(try await listed(library).first)

        try await step(terminal, "a", until: { $0.contains("Keep 0:0") && $0.contains("(x cuts") })
        try await step(terminal, "p", until: { $0.contains("Playing (not counted)") && $0.contains("i and o set the start") })
        // i once the play line says 0:01, o once it says 0:02 (of 0:03)
        try await step(terminal, "", until: { $0.contains("0:01 ") })
        terminal.type("i")
        try await step(terminal, "", until: { $0.contains("0:02 ") })
        terminal.type("o")
        try await step(terminal, "", until: { $0.contains("Keep ") && $0.contains("·") })
        let marked = try #require(terminal.output.matches(of: #/Keep (\d+):(\d\d\.\d+)-(\d+):(\d\d\.\d+) of/#).last)
        let (start, end) = (Double(marked.2)!, Double(marked.4)!)
        #expect(start > 0.2 && end > start + 0.3 && end < Double(saved.duration), "marked \(start)-\(end)")

        let capture = try await SinkCapture.start(sink: speaker.sinkName)
        try await step(terminal, "[", until: { $0.contains("(the first 3 s kept)") })
        try await step(terminal, "", until: { $0.contains(Self.shapeKeys) })
        try await step(terminal, "]", until: { $0.contains("(the last 3 s kept)") })
        try await step(terminal, "", until: { $0.contains(Self.shapeKeys) })
        let heard = try await offPool { try capture.stop() }
        #expect(Witness.dominantFrequency(heard) > 400 && Witness.dominantFrequency(heard) < 480, "the kept part heard at the sink")

        try await step(terminal, "x", until: { $0.contains("The cut parts cannot be recovered. [y/N]") })
        try await step(terminal, "y\n", until: { $0.contains("Trimmed \"Before\"") })
        terminal.type("\n")
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0 && shown.contains(saved.id.description), "\(shown)")
        let kept = try #require(try await listed(library).first)
        #expect(kept.id == saved.id && kept.title == "Before" && abs(kept.duration - (end - start)) < 0.01, "\(kept.duration) for \(start)-\(end)")
        #expect(kept.playCount == 0, "auditions are never counted")
    }

    @Test("c cleans the noise and says by how much; p listens, a switches between after (B) and before (A); n keeps the clip as it was, y keeps the cleaned one; discard still asks")
    func cleanKeys() async throws {
        // Noise all the time, a tone every other second: any stretch of the recording holds both
        let microphone = try await VirtualMicrophone()
        let sound = temporaryFolder().appendingPathComponent("noisy.s16")
        let made = try await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                      "aevalsrc=0.02*(2*random(0)-1)+0.4*sin(2*PI*440*t)*gte(mod(t\\,2)\\,1):s=48000:d=120",
                                      "-f", "s16le", "-ac", "1", sound.path])
        try #require(made.status == 0, "\(made.error)")
        let player = TestProcess()
        player.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        player.arguments = ["pacat", "--playback", "--raw", "--device=\(microphone.sinkName)", "--format=s16le", "--rate=48000",
                            "--channels=1", "--latency-msec=20", sound.path]
        player.environment = Cravey.environment()
        try player.run()
        defer { kill(player.processIdentifier, SIGKILL) }
        let sinkName = microphone.sinkName
        #expect(try await poll(within: 10, every: 0.02) {
            try TestSoundServer.pactlBlocking(["list", "short", "sinks"]).output.split(separator: "\n").contains { $0.contains(sinkName) && $0.contains("RUNNING") }
        }, "the noise never reached \(sinkName)")
        let speaker = try await VirtualMicrophone()
        let terminal = try await recorded(microphone: microphone, sink: speaker, seconds: 4)
        kill(player.processIdentifier, SIGKILL)
        let saved = try #require(try await listed(library).first)
        let media = library.appendingPathComponent(saved.filePath)
        let bytes = try Data(contentsOf: media)

        try await step(terminal, "c", until: { $0.contains("Noise floor:") && $0.contains("p listen (a switches before/after)") })
        try await step(terminal, "p", until: { $0.contains("B: after (cleaned)") })
        // Time is the subject: each side is listened to for a while before the switch.
        try await Task.sleep(for: .milliseconds(600))
        try await step(terminal, "a", until: { $0.contains("A: before") })
        try await Task.sleep(for: .milliseconds(400))
        try await step(terminal, "a", until: { $0.matches(of: #/B: after/#).count >= 1 })
        try await step(terminal, "q", until: { $0.contains("p listen (a switches before/after)") })
        try await step(terminal, "n", until: { $0.contains("as it was") })
        #expect(try Data(contentsOf: media) == bytes, "n keeps the clip as it was")

        try await step(terminal, "c", until: { $0.contains("p listen (a switches before/after)") })
        try await step(terminal, "y", until: { $0.contains("Kept the cleaned \"Before\"") && $0.contains(Self.shapeKeys) })
        #expect(try Data(contentsOf: media) != bytes, "y keeps the cleaned clip")
        try await step(terminal, "d", until: { $0.contains("Discard recording? This cannot be undone.") })
        try await step(terminal, "n\n", until: { $0.contains("Not discarded.") })
        terminal.type("\n")
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0, "\(shown)")
        let kept = try #require(try await listed(library).first)
        #expect(kept.id == saved.id && kept.title == "Before" && kept.playCount == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Recordings").path)
        #expect(names.allSatisfy { !$0.hasSuffix(".importing") && !$0.hasPrefix(".") }, "\(names)")
    }
}
