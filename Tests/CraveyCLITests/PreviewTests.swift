import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// The look back after `cravey record` stops, as a person at a terminal uses it: cravey runs on a
/// real pseudo-terminal, with a tone in the virtual microphone and the sink's monitor listened to.
@Suite("The look back before keeping", .temporaryFiles)
struct PreviewTests {
    let library = temporaryLibrary()
    /// The look back's line of keys.
    static let keys = "p play · t title · n notes · u purpose · d discard · Enter keep"

    /// Starts a 1 s recording on a terminal and waits for the look back's keys; it plays back
    /// to `sink` (the default sink, chosen with libpulse's PULSE_SINK).
    private func recorded(microphone: VirtualMicrophone, sink: VirtualMicrophone? = nil) async throws -> PseudoTerminal {
        let terminal = try Cravey.startOnTerminal(["record", "--seconds", "1", "--title", "Before", "--library", library.path,
                                                   "--device", microphone.monitor],
                                                  environment: sink.map { ["PULSE_SINK": $0.sinkName] } ?? [:])
        let shown = try await offPool { terminal.waitUntilShown(within: 90) { $0.contains(Self.keys) } }
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
        let microphone = try VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { tone.terminate() }
        let speaker = try VirtualMicrophone()
        let terminal = try await recorded(microphone: microphone, sink: speaker)
        tone.terminate()
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
        let heard = try capture.stop()
        #expect(Witness.dominantFrequency(heard) > 400 && Witness.dominantFrequency(heard) < 480, "the clip's tone at the sink")

        try await step(terminal, "d", until: { $0.contains("Discard recording? This cannot be undone. [y/N]") })
        try await step(terminal, "n\n", until: { $0.contains("Not discarded.") })
        terminal.type("\n")
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0, "\(shown)")
        #expect(shown.contains("Kept \"Breathe in\"") && shown.contains(saved.id.uuidString.lowercased()))

        let kept = try #require(try await listed(library).first)
        #expect(kept.id == saved.id && kept.title == "Breathe in" && kept.purpose == .craving && kept.notes == "after a walk")
        #expect(kept.playCount == 0, "a preview is never counted")
    }

    @Test("d and y discard the clip: its row and files are gone and nothing is printed on stdout")
    func discard() async throws {
        let microphone = try VirtualMicrophone()
        let terminal = try await recorded(microphone: microphone)
        let saved = try #require(try await listed(library).first)
        try await step(terminal, "d", until: { $0.contains("Discard recording? This cannot be undone.") })
        terminal.type("y\n")
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0, "\(shown)")
        #expect(shown.contains("Discarded \"Before\"") && !shown.contains(saved.id.uuidString.lowercased()), "\(shown)")
        #expect(try await listed(library).isEmpty)
        let left = try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("Recordings").path)
            .filter { $0.contains(saved.id.uuidString.lowercased()) }
        #expect(left.isEmpty, "\(left)")
    }

    @Test("a title pasted with line breaks is no title, and nothing of the paste is read as keys: the clip is kept as it was; text pasted at the keys is no key")
    func pasteIsNotKeys() async throws {
        let microphone = try VirtualMicrophone()
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
        let microphone = try VirtualMicrophone()
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
        let microphone = try VirtualMicrophone()
        let terminal = try Cravey.startOnTerminal(["record", "--seconds", "1", "--no-preview", "--library", library.path,
                                                   "--device", microphone.monitor])
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0 && !shown.contains(Self.keys), "\(shown)")
        let piped = try await Cravey.run(["record", "--seconds", "1", "--library", library.path, "--device", microphone.monitor])
        #expect(piped.status == 0 && !piped.error.contains(Self.keys), "\(piped.error)")
        #expect(try await listed(library).count == 2)
    }
}
