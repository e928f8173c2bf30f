import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// A question answered after another process changed its clip: `trim` and `delete` asked on a
/// terminal, another `cravey` changing the clip before the answer, and the answer
/// `y` then refused with exit 75, the clip's row and media byte for byte as the other left them.
@Suite("A question answered after its clip changed", .temporaryFiles)
struct AskedQuestionTests {
    let library = temporaryLibrary()

    /// Imports 4 s: a tone from 1 s to 3 s over pink noise (about -48 dBFS RMS); returns its id.
    func imported(title: String = "Asked") async throws -> String {
        let source = try await Fixture.make("m4a", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)*between(t\\,1\\,3):s=48000:d=4",
                                              "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.02:sample_rate=48000:seed=7:duration=4",
                                              "-filter_complex", "[0][1]amix=inputs=2:normalize=0:duration=first", "-ac", "1", "-c:a", "aac", "-b:a", "96k"])
        let result = try await Cravey.run(["import", source.path, "--title", title, "--library", library.path])
        try #require(result.status == 0, "\(result.error)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The clip's row and the bytes of its media.
    func state(_ id: String) throws -> (Recording?, Data) {
        let uuid = try #require(RecordingID(id))
        let row = try RecordingLibrary(at: library).recording(uuid)
        return (row, try Data(contentsOf: library.appendingPathComponent("Recordings/audio_\(id).m4a")))
    }

    /// Starts `arguments` on a terminal, waits for `question`, runs `meanwhile` (another
    /// `cravey`'s change, which must succeed), answers `answer`; returns its exit status and what
    /// it showed, with the clip's state after the other process's change.
    func answerAfterChange(_ arguments: [String], question: String, answer: String = "y\n", id: String,
                           meanwhile: [String]) async throws -> (status: Int32, shown: String, before: (Recording?, Data)) {
        try await answerAfterChange(arguments, question: question, answer: answer, id: id) {
            let other = try await Cravey.run(meanwhile + ["--library", library.path])
            try #require(other.status == 0, "the other process: \(other.error)")
        }
    }

    /// The same, with `meanwhile` any change.
    func answerAfterChange(_ arguments: [String], question: String, answer: String = "y\n", id: String,
                           meanwhile: () async throws -> Void) async throws -> (status: Int32, shown: String, before: (Recording?, Data)) {
        let terminal = try Cravey.startOnTerminal(arguments + ["--library", library.path])
        let asked = try await offPool { terminal.waitUntilShown(within: 120) { $0.contains(question) } }
        guard asked else {
            terminal.hangUp()
            throw TestFailure("cravey \(arguments.joined(separator: " ")) never asked: \(terminal.output)")
        }
        try await meanwhile()
        let before = try state(id)
        terminal.type(answer)
        let shown = try await offPool { terminal.waitForExit() }
        return (terminal.process.terminationStatus, shown, before)
    }

    @Test("trim asked \"Cut?\", another cravey trims the clip, then y: exit 75, \"changed by another cravey\", the clip as the other left it (before: the old cut points were applied to the new clip)")
    func trimAfterTrim() async throws {
        let id = try await imported()
        let (status, shown, before) = try await answerAfterChange(["trim", id, "--start", "0.5", "--end", "3.9"], question: "[y/N]", id: id,
                                                                  meanwhile: ["trim", id, "--start", "1", "--end", "3", "--yes"])
        #expect(status == 75, "\(shown)")
        #expect(shown.contains("changed by another cravey"), "\(shown)")
        let after = try state(id)
        #expect(after.0 == before.0 && after.1 == before.1, "the row and the media are as the other trim left them")
        #expect(abs(try #require(after.0).duration - 2) < 0.01)
    }

    @Test("trim --auto asked, another cravey cleans the clip and keeps it: exit 75, the cleaned clip stays as it is")
    func autoTrimAfterClean() async throws {
        let id = try await imported()
        let (status, shown, before) = try await answerAfterChange(["trim", id, "--auto"], question: "[y/N]", id: id,
                                                                  meanwhile: ["clean", id, "--yes"])
        #expect(status == 75, "\(shown)")
        let after = try state(id)
        #expect(after.0 == before.0 && after.1 == before.1)
    }

    @Test("delete asked, another cravey trims the clip, then y: exit 75 and the trimmed clip stays; asked, its title edited meanwhile: 75 too; a play counted meanwhile: deleted")
    func deleteAfterChange() async throws {
        let id = try await imported()
        let trimmed = try await answerAfterChange(["delete", id], question: "[y/N]", id: id, meanwhile: ["trim", id, "--start", "1", "--end", "3", "--yes"])
        #expect(trimmed.status == 75 && trimmed.shown.contains("changed by another cravey"), "\(trimmed.shown)")
        var after = try state(id)
        #expect(after.0 == trimmed.before.0 && after.1 == trimmed.before.1)

        let renamed = try await answerAfterChange(["delete", id], question: "[y/N]", id: id, meanwhile: ["edit", id, "--title", "Keep this one"])
        #expect(renamed.status == 75, "\(renamed.shown)")
        after = try state(id)
        #expect(after.0 == renamed.before.0 && after.0?.title == "Keep this one" && after.1 == renamed.before.1)

        let uuid = try #require(RecordingID(id))
        let played = try await answerAfterChange(["delete", id], question: "[y/N]", id: id) {
            _ = try RecordingLibrary(at: library).countPlay(of: uuid, secondsListened: 2, completed: true)
        }
        #expect(played.status == 0 && played.before.0?.playCount == 1, "\(played.shown)")
        #expect(try RecordingLibrary(at: library).recording(uuid) == nil, "a play counted meanwhile changes nothing the question showed")
    }
}
