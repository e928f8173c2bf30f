import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey transcript ID --edit` with a scripted editor: what it is given, what it stores, and
/// every way that changes nothing.
@Suite("Correcting a transcript in an editor", .temporaryFiles)
struct TranscriptEditTests {
    /// "Good morning." from 0.5 s, then "Seven boats came in before midnight." from 3 s.
    static let heard = Transcript(language: "en", words: [
        .init(start: 0.5, end: 0.8, text: "Good"), .init(start: 0.8, end: 1.3, text: "morning."),
        .init(start: 3.0, end: 3.4, text: "Seven"), .init(start: 3.4, end: 3.8, text: "boats"), .init(start: 3.8, end: 4.0, text: "came"),
        .init(start: 4.0, end: 4.2, text: "in"), .init(start: 4.2, end: 4.6, text: "before"), .init(start: 4.6, end: 5.2, text: "midnight."),
    ])

    /// A library of one clip with the words above; the library and the clip's id.
    func library() async throws -> (RecordingLibrary, Recording) {
        let library = try await Fixture.library(titles: ["Harbour"])
        let clip = try #require(try library.recordings().first)
        _ = try library.store.write { tx in try tx.store(Self.heard.data, as: .transcript, of: ClipFiles(clip)) }
        return (library, clip)
    }

    /// An editor: a shell script running `body` on the file ("$1"), writing where the file is and its mode to `log`.
    func editor(_ body: String, log: URL) async throws -> String {
        let script = temporaryFolder().appendingPathComponent("editor-\(UUID().uuidString.prefix(8))")
        try await writeScript("#!/bin/sh\necho \"$1 $(stat -c %a \"$1\")\" >> '\(log.path)'\n\(body)\n", to: script)
        return script.path
    }

    func edit(_ clip: Recording, in library: RecordingLibrary, with body: String) async throws -> (CommandResult, [String]) {
        let log = temporaryFolder().appendingPathComponent("editor-\(UUID().uuidString.prefix(8)).log")
        let script = try await editor(body, log: log)
        let run = try await Cravey.run(["transcript", clip.id.description, "--edit", "--library", library.url.path],
                                       environment: ["EDITOR": script, "VISUAL": ""])
        let seen = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        return (run, seen)
    }

    @Test("the editor gets the sentences a line each, in a file inside the library (0600) removed after; a changed sentence has its words spread over its time, the others keep theirs")
    func corrected() async throws {
        let (library, clip) = try await library()
        let (run, seen) = try await edit(clip, in: library, with: "sed -i 's/boats/ships at/' \"$1\"; cp \"$1\" \"$1.seen\"")
        #expect(run.status == 0 && run.error.contains("Corrected the words of \"Harbour\" (9 words)"), "\(run.error)")
        // Given inside the library, mode 0600, and gone after.
        let given = try #require(seen.first?.split(separator: " ").first.map(String.init))
        #expect(given.hasPrefix(library.url.appendingPathComponent("Recordings").path + "/") && given.hasSuffix(".words.txt") && seen.first?.hasSuffix(" 600") == true,
                "\(seen)")
        #expect(!FileManager.default.fileExists(atPath: given))
        let shown = try String(contentsOfFile: given + ".seen", encoding: .utf8)
        try FileManager.default.removeItem(atPath: given + ".seen")
        #expect(shown == "Good morning.\nSeven ships at came in before midnight.\n")
        let words = try #require(library.transcripts.transcript(of: clip)).words
        #expect(Array(words.prefix(2)) == Array(Self.heard.words.prefix(2)))
        #expect(words.dropFirst(2).map(\.text) == ["Seven", "ships", "at", "came", "in", "before", "midnight."])
        #expect(words[2].start == 3.0 && abs(words.last!.end - 5.2) < 1e-9)
        #expect(zip(words.dropFirst(2), words.dropFirst(3)).allSatisfy { abs($0.end - $1.start) < 1e-9 && $0.end > $0.start })
        #expect(library.transcripts.transcript(of: clip)?.language == "en")
    }

    @Test("an editor that fails, a file left empty or unchanged, lines that are not one a sentence or a file too large (64), and words changed meanwhile (75) change nothing and leave no file")
    func nothingChanged() async throws {
        let (library, clip) = try await library()
        let words = ClipFiles(clip).file(.transcript)!
        let before = try Data(contentsOf: library.fileURL(words))
        let cravey = Cravey.executable, id = clip.id.description, path = library.url.path
        let cases: [(String, Int32, String)] = [
            ("sed -i 's/boats/ships/' \"$1\"; exit 1", 0, "did not end well"),
            (": > \"$1\"", 0, "left as they were"),
            ("true", 0, "left as they were"),
            ("echo 'One more.' >> \"$1\"", 64, "3 lines for 2 sentences"),
            // One line of 1.6 MB: refused before it is read whole (a transcript of it would be
            // larger than any reader takes).
            ("head -c 1600000 /dev/zero | tr '\\0' 'a' > \"$1\"", 64, "1600000 bytes, more than"),
            ("sed -i 's/boats/ships/' \"$1\"; '\(cravey)' edit \(id) --title Other --library '\(path)' >/dev/null 2>&1", 75, "changed by another cravey meanwhile"),
        ]
        for (body, status, said) in cases {
            let (run, _) = try await edit(clip, in: library, with: body)
            #expect(run.status == status && run.error.contains(said), "\(body): \(run.status) \(run.error)")
            #expect(try Data(contentsOf: library.fileURL(words)) == before, "\(body)")
            let left = try FileManager.default.contentsOfDirectory(atPath: library.url.appendingPathComponent("Recordings").path)
            #expect(!left.contains { $0.hasSuffix(".words.txt") }, "\(body): \(left)")
        }
        let refused = try await Cravey.run(["transcript", id, "--edit", "--json", "--library", path])
        #expect(refused.status == 64, "\(refused.error)")
    }
}
