import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey transcribe` and `cravey transcript`, run as a person runs them, with the checkout's
/// real transcriber (scripts/test makes it; these tests fail without it) or without any.
@Suite("The transcribe and transcript commands", .temporaryFiles)
struct TranscribeCommandTests {
    /// A library holding one imported clip of speech; its id.
    func spokenLibrary(_ phrases: [String]) async throws -> (URL, String) {
        let (speech, _) = try await Speech.clip(phrases, lead: 0.3)
        let library = temporaryLibrary()
        let imported = try await Cravey.run(["import", speech.path, "--title", "Morning", "--json", "--library", library.path])
        try #require(imported.status == 0, "\(imported.error)")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(imported.output.utf8)) as? [String: Any])?["id"] as? String)
        return (library, id)
    }

    /// Every file under `folder`, its path and bytes.
    func files(under folder: URL) -> [(String, Data)] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.compactMap { url in FileManager.default.contents(atPath: url.path).map { (url.path, $0) } }
    }

    @Test("words add at a terminal names the clips heard with one of the word's forms and asks; a yes hears them again with the real transcriber, a no leaves their words")
    func wordsAddOffersToHearAgain() async throws {
        // Given a clip of speech whose stored words (a stand-in) hold "shivon"
        let environment = try Speech.environment()
        let (folder, id) = try await spokenLibrary(["Call my sister tonight."])
        let library = try RecordingLibrary(at: folder)
        let clip = try #require(try library.recordings().first)
        let standIn = Transcript(language: "en", words: [Transcript.Word(start: 0.3, end: 0.6, text: "shivon")])
        try library.store.write { tx in try tx.store(standIn.data, as: .transcript, of: ClipFiles(clip)) }

        // When a word with that form is added at a terminal and the answer is no, nothing is heard
        let declined = try await Cravey.answerOnTerminal(["words", "add", "Siobhan", "--heard-as", "shivon", "--library", folder.path], "n\r",
                                                         environment: environment)
        #expect(declined.status == 0 && declined.output.contains("1 clip has words heard as it before: \"Morning\".")
                && declined.output.contains("Hear it again now? [y/N]") && declined.output.contains("--hear-again hears them"), "\(declined.output)")
        #expect(library.transcripts.transcript(of: clip)?.words.map(\.text) == ["shivon"])

        // When another form is added and the answer is yes
        let heard = try await Cravey.answerOnTerminal(["words", "add", "Siobhan", "--heard-as", "shiv on", "--library", folder.path], "y\r",
                                                      environment: environment)

        // Then the clip was heard again: its words are what was said, shown as they were heard
        #expect(heard.status == 0 && heard.output.contains("Heard "), "\(heard.output)")
        let words = try #require(library.transcripts.transcript(of: clip)).words.map { Speech.letters($0.text) }
        #expect(words.contains("sister") && !words.contains("shivon"), "\(words) (clip \(id))")
    }

    @Test("the transcriber runs in a network namespace of its own, with no interface but a loopback: no packet could leave it, whatever it loads")
    func transcriberWithoutNetwork() async throws {
        // Given a clip of speech, and the transcriber
        let environment = try Speech.environment()
        let (library, id) = try await spokenLibrary(["Good morning.", "Seven boats came in before midnight."])

        // When it is heard, the transcriber's process is looked at while it runs: until it is
        // seen in a network namespace other than this test's (it enters its own as it starts),
        // or it has ended
        let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
        let hearing = try Cravey.start(["transcribe", id, "--library", library.path], environment: environment)
        let found = try await offPool { () -> (namespace: String, interfaces: [String])? in
            var seen: (String, [String])?
            _ = waitUntil(within: 60, every: 0.005) {
                if let pid = Self.transcriber(under: hearing.processIdentifier),
                   let namespace = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/net"),
                   let devices = try? String(contentsOfFile: "/proc/\(pid)/net/dev", encoding: .utf8) {
                    seen = (namespace, devices.split(separator: "\n").dropFirst(2).compactMap { $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces) })
                }
                return seen.map { $0.0 != ours } == true || !hearing.isRunning
            }
            return seen
        }
        await exit(of: hearing)

        // Then it was in a namespace other than this test's, with a loopback alone, and it heard
        let (namespace, interfaces) = try #require(found, "the transcriber was never seen running")
        #expect(namespace != ours, "\(namespace)")
        #expect(interfaces == ["lo"], "\(interfaces)")
        #expect(hearing.terminationStatus == 0)
    }

    /// The transcriber's process among the children of `parent`'s threads (cravey hands
    /// `transcribe` to cravey-media in the same process, which starts the transcriber's Python
    /// from a thread of its own).
    static func transcriber(under parent: Int32) -> Int32? {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(parent)/task") else { return nil }
        let children = threads.compactMap { try? String(contentsOfFile: "/proc/\(parent)/task/\($0)/children", encoding: .utf8) }.joined(separator: " ")
        return children.split(separator: " ").compactMap { Int32($0) }.first { pid in
            (FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")).map { String(decoding: $0, as: UTF8.self).contains("cravey-transcriber") } ?? false
        }
    }

    @Test("without the transcriber, transcribe and transcript exit 69 saying how to add it, and change nothing")
    func notInstalled() async throws {
        let library = try await Fixture.library(clips: 1)
        let id = try #require(try library.recordings().first).id.description
        let before = library.store.storedFiles()
        // No CRAVEY_TRANSCRIBER, and none beside the programs: as a person's cravey without it.
        let none = ["CRAVEY_TRANSCRIBER": ""]
        for arguments in [["transcribe", id], ["transcribe", "--all"], ["transcript", id]] {
            let refused = try await Cravey.run(arguments + ["--library", library.url.path], environment: none)
            #expect(refused.status == 69, "\(arguments): \(refused.status) \(refused.error)")
            #expect(refused.error.contains("not installed") && refused.error.contains("scripts/install --transcribe"), "\(refused.error)")
        }
        #expect(library.store.storedFiles() == before)
        #expect(try await Cravey.run(["transcribe", "--library", library.url.path], environment: none).status == 64)
    }

    @Test("transcribe --all stores the words, showing its progress on a terminal; transcript prints them as txt, srt, vtt and json; an encrypted backup carries them; delete leaves no word in any file")
    func wordsThroughTheirLife() async throws {
        let environment = try Speech.environment()
        let (library, id) = try await spokenLibrary(["Good morning.", "Seven boats came in before midnight."])
        // Before: no transcript yet (66, saying how to make it); an unknown id is 66 too.
        let none = try await Cravey.run(["transcript", id, "--library", library.path], environment: environment)
        #expect(none.status == 66 && none.error.contains("no transcript yet") && none.error.contains("cravey transcribe"), "\(none.error)")
        let unknown = try await Cravey.run(["transcribe", "ffffffff", "--library", library.path], environment: environment)
        #expect(unknown.status == 66, "\(unknown.error)")
        // On a terminal, --all shows its progress, then what it heard.
        let made = try await Cravey.runOnTerminal(["transcribe", "--all", "--library", library.path], environment: environment)
        #expect(made.status == 0 && made.output.contains("Hearing \"Morning\": 0%") && made.output.contains("Heard "), "\(made.output)")
        let again = try await Cravey.run(["transcribe", "--all", "--library", library.path], environment: environment)
        #expect(again.status == 0 && again.error.contains("Every clip has its transcript"), "\(again.error)")

        let json = try await Cravey.run(["transcript", id, "--format", "json", "--library", library.path], environment: environment)
        let transcript = try JSONDecoder().decode(Transcript.self, from: Data(json.output.utf8))
        let word = try #require(transcript.words.first { Speech.letters($0.text) == "midnight" }, "heard: \(json.output)")
        let text = try await Cravey.run(["transcript", id, "--library", library.path])
        #expect(text.status == 0 && text.output == transcript.text + "\n")
        let srt = try await Cravey.run(["transcript", id, "--format", "srt", "--library", library.path])
        #expect(srt.output.hasPrefix("1\n00:00:0") && srt.output.contains(" --> ") && srt.output.contains("2\n00:00:0"), "\(srt.output)")
        let vtt = try await Cravey.run(["transcript", id, "--format", "vtt", "--library", library.path])
        #expect(vtt.output.hasPrefix("WEBVTT\n\n00:00:0") && vtt.output.contains(word.text), "\(vtt.output)")

        // An encrypted backup, restored into a new library: the same words, byte for byte.
        let passphrase = temporaryFolder().appendingPathComponent("passphrase")
        try Data("a long passphrase for words\n".utf8).write(to: passphrase)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passphrase.path)
        let secret = ["CRAVEY_PASSPHRASE_FILE": passphrase.path]
        let archive = temporaryFolder().appendingPathComponent("words.age")
        let backup = try await Cravey.run(["backup", "--encrypt", "--output", archive.path, "--library", library.path], environment: secret)
        try #require(backup.status == 0, "\(backup.error)")
        let restored = temporaryLibrary()
        let restore = try await Cravey.run(["restore", archive.path, "--library", restored.path], environment: secret)
        try #require(restore.status == 0, "\(restore.error)")
        let back = try await Cravey.run(["transcript", id, "--format", "json", "--library", restored.path])
        #expect(back.status == 0 && back.output == json.output)

        // Deleted: no file of the library holds the word any more (rows, database, WAL, parts).
        let deleted = try await Cravey.run(["delete", id, "--yes", "--library", library.path])
        #expect(deleted.status == 0, "\(deleted.error)")
        let needle = Data(word.text.lowercased().filter(\.isLetter).utf8)
        for (path, bytes) in files(under: library) {
            #expect(Data(bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }).range(of: needle) == nil, "\(path) still holds \(word.text)")
        }
    }
}
