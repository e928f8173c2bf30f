import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// What a person at a terminal sees: cravey runs on a real pseudo-terminal.
@Suite("At a terminal", .temporaryFiles)
struct TerminalTests {
    @Test("delete asks 'Delete '<title>'? This cannot be undone. [y/N]': no keeps the clip, y deletes it")
    func deletePrompt() async throws {
        let library = try Fixture.library(titles: ["Don't Do It"])
        let recording = try #require(try library.repository.fetchAll().first)
        let arguments = ["delete", recording.id.uuidString, "--library", library.storage.libraryURL.path]

        let declined = try await Cravey.runOnTerminal(arguments, input: "n\n")
        #expect(declined.status == 0)
        #expect(declined.output.contains("Delete 'Don't Do It'? This cannot be undone. [y/N]"))
        #expect(try library.repository.count() == 1)

        let accepted = try await Cravey.runOnTerminal(arguments, input: "y\n")
        #expect(accepted.status == 0 && accepted.output.contains("Deleted"))
        #expect(try library.repository.count() == 0)
    }

    @Test("record shows a live level meter on a terminal, and none with NO_COLOR or when piped")
    func meter() async throws {
        let microphone = try VirtualMicrophone()
        let player = try await microphone.play(frequency: 440)
        defer { player.terminate() }
        let library = temporaryLibrary().path
        let arguments = ["record", "--seconds", "1", "--device", microphone.monitor, "--library", library]

        let live = try await Cravey.runOnTerminal(arguments)
        #expect(live.status == 0, "\(live.output)")
        #expect(live.output.contains("dBFS") && live.output.contains("\u{1B}[31m●"), "terminal showed: \(live.output.debugDescription)")
        #expect(capturedSeconds(shownOn: live.output).map { $0 >= 0.5 && $0 <= 1 } == true, "the clock counts the second recorded in tenths")

        let plain = try await Cravey.runOnTerminal(arguments, environment: ["NO_COLOR": "1"])
        #expect(plain.status == 0 && !plain.output.contains("dBFS") && !plain.output.contains("\u{1B}["))

        let piped = try await Cravey.run(arguments)
        #expect(piped.status == 0 && !piped.error.contains("dBFS"))
    }
}
