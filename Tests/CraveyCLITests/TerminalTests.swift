import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// What a person at a terminal sees: cravey runs on a real pseudo-terminal.
@Suite("At a terminal", .temporaryFiles)
struct TerminalTests {
    @Test("delete asks 'Delete '<title>'? This cannot be undone. [y/N]': no keeps the clip, y deletes it")
    func deletePrompt() async throws {
        let library = try await Fixture.library(titles: ["Don't Do It"])
        let recording = try #require(try library.recordings().first)
        let arguments = ["delete", recording.id.uuid.uuidString, "--library", library.url.path]

        let declined = try await answer(arguments, "n\n")
        #expect(declined.status == 0)
        #expect(declined.output.contains("Delete 'Don't Do It'? This cannot be undone. [y/N]"))
        #expect(try library.count() == 1)

        let accepted = try await answer(arguments, "y\n")
        #expect(accepted.status == 0 && accepted.output.contains("Deleted"))
        #expect(try library.count() == 0)
    }

    func answer(_ arguments: [String], _ text: String, typedAhead: String = "") async throws -> (status: Int32, output: String) {
        let result = try await Cravey.answerOnTerminal(arguments, text, typedAhead: typedAhead)
        return (result.status, result.output)
    }

    @Test("delete and delete-all read only the answer typed after they ask: a y typed ahead is thrown away, and a pasted answer with more lines after it is no answer")
    func confirmationReadsWhatFollows() async throws {
        let library = try await Fixture.library(titles: ["Typed ahead", "Other"])
        let recording = try #require(try library.recordings().first { $0.title == "Typed ahead" })

        // A "y" typed before the question, then "n" after it: not deleted
        let ahead = try await answer(["delete", recording.id.uuid.uuidString, "--library", library.url.path], "n\n", typedAhead: "y\n")
        #expect(ahead.status == 0 && ahead.output.contains("Nothing was deleted"), "\(ahead.output)")
        #expect(try library.count() == 2)

        // "y" pasted with another line after it: no answer
        let pasted = try await answer(["delete-all", "--library", library.url.path], "y\nsomething else\n")
        #expect(pasted.status == 0 && pasted.output.contains("Nothing was deleted"), "\(pasted.output)")
        #expect(try library.count() == 2)
    }

    @Test("record shows a live meter on a terminal (the clock, the last seconds as a waveform, the level), plain with NO_COLOR, none when piped")
    func meter() async throws {
        let microphone = try await VirtualMicrophone()
        let player = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(player) {} }  // its deinit stops it, on a thread of its own
        let library = temporaryLibrary().path
        let arguments = ["record", "--seconds", "1", "--no-preview", "--device", microphone.monitor, "--library", library]

        let live = try await Cravey.runOnTerminal(arguments)
        #expect(live.status == 0, "\(live.output)")
        #expect(live.output.contains("dBFS") && live.output.contains("\u{1B}[31m●"), "terminal showed: \(live.output.debugDescription)")
        #expect(capturedSeconds(shownOn: live.output).map { $0 >= 0.5 && $0 <= 1 } == true, "the clock counts the second recorded in tenths")
        // The tone shows in the waveform's newest bars, above the silence's lowest one
        let bars = try #require(live.output.matches(of: #/\d:\d\d\.\d ([ ▁▂▃▄▅▆▇█]+) /#).last.map { String($0.1).trimmingCharacters(in: .whitespaces) })
        #expect(bars.count >= 8 && bars.last.map { $0 != "▁" && $0 != " " } == true, "\(bars)")
        // At least 10 lines a second: the clock shows at least 8 distinct tenths in 1 s
        let tenths = Set(live.output.matches(of: #/(\d):(\d\d)\.(\d) /#).map { "\($0.1)\($0.2)\($0.3)" })
        #expect(tenths.count >= 8, "\(tenths.sorted())")

        let plain = try await Cravey.runOnTerminal(arguments, environment: ["NO_COLOR": "1"])
        #expect(plain.status == 0 && plain.output.contains("dBFS") && !plain.output.contains("\u{1B}[31m"), "\(plain.output.debugDescription)")

        let piped = try await Cravey.run(arguments)
        #expect(piped.status == 0 && !piped.error.contains("dBFS"))
    }

    @Test("space pauses a recording on a terminal and again resumes it: the meter says paused, its clock stands still, and the clip is the --seconds recorded")
    func spacePauses() async throws {
        let microphone = try await VirtualMicrophone()
        let tone = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(tone) {} }  // its deinit stops it, on a thread of its own
        let library = temporaryLibrary()
        let terminal = try Cravey.startOnTerminal(["record", "--seconds", "3", "--no-preview", "--library", library.path,
                                                   "--device", microphone.monitor])
        let started = ContinuousClock.now
        #expect(try await offPool { terminal.waitUntilShown(within: 20) { (capturedSeconds(shownOn: $0) ?? 0) >= 1 } })
        terminal.type(" ")
        #expect(try await offPool { terminal.waitUntilShown(within: 10) { $0.contains("Paused at") } })
        let atPause = try #require(capturedSeconds(shownOn: terminal.output))
        // Time is the subject: 1.5 s paused are to be left out of the clip (and the meter draws
        // nothing while paused, so there is no event to count).
        try await Task.sleep(for: .seconds(1.5))
        let shownPaused = terminal.output
        #expect(shownPaused.contains("❚❚") && shownPaused.contains("paused"), "\(shownPaused.debugDescription)")
        #expect(try #require(capturedSeconds(shownOn: shownPaused)) <= atPause + 0.1, "the clock stood still")
        terminal.type(" ")
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 0, "\(shown)")
        #expect(shown.contains("Resumed at 0:0"), "\(shown)")
        #expect(ContinuousClock.now - started >= .seconds(4.5), "3 s recorded and 1.5 s paused")
        #expect(try await listed(library).first?.duration == 3.0)
    }
}
