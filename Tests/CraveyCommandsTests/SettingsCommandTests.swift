import CraveyCore
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands

/// `cravey settings` and the settings' effect on the commands, in process (``Outcome``, on a
/// settings file of the test's own): each key set, shown, honoured and unset, in a file a person
/// edits by hand; refusals name the valid keys and values; a file damaged by hand is reported by
/// its line and ignored, never rewritten, and what it holds reaches the terminal escaped. (A file
/// in a state only its owner could not have made, refused by every command at once and in little
/// memory, and `home.open`: the CLI's SettingsTests.)
@Suite("Settings, in process", .temporaryFiles)
struct SettingsCommandTests {
    /// A settings file's place in a folder of the test's own, no file there yet.
    func place(folderName: String = "config") -> URL {
        temporaryFolder().appendingPathComponent("\(folderName)-\(UUID().uuidString.prefix(8))/cravey/settings.toml")
    }

    /// A settings file holding `text` (mode 0600, in a folder 0700), as a person writes one.
    func file(_ text: String, folderName: String = "config") throws -> URL {
        let file = place(folderName: folderName)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try Data(text.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return file
    }

    func settings(_ arguments: [String], _ file: URL) async throws -> Outcome {
        try await Outcome.of(["settings"] + arguments, settings: file)
    }

    @Test("each key is set (file mode 0600 in a 0700 folder, a person's comments kept), shown with its line, and unset back to its default")
    func setShowUnset() async throws {
        // Given no settings file, then one with a comment of the person's own
        let file = place()
        let listed = try await settings(["--json"], file)
        let defaults = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]], "\(listed)")
        #expect(defaults.map { $0["key"] as? String } == ["desktop.show-titles", "clip.purpose", "play.loudness", "list.sort",
                                                           "backup.encrypt", "home.open", "network.allow-servers", "transcribe.auto",
                                                           "transcribe.language"])
        #expect(defaults.allSatisfy { $0["source"] as? String == "default" }, "\(defaults)")
        #expect(!FileManager.default.fileExists(atPath: file.path), "listing made a file")
        // (and the help names each with its default: network.allow-servers was once left out of it)
        let help = try await settings(["--help"], file).output.replacingOccurrences(of: "\n", with: " ")
        for key in defaults.compactMap({ $0["key"] as? String }) { #expect(help.contains("\(key) (default "), "\(key) not in the help") }

        // When every key is set
        let values = [("desktop.show-titles", "true", "true"), ("clip.purpose", "craving", "\"craving\""), ("play.loudness", "-23", "-23"),
                      ("list.sort", "most-played", "\"most-played\""), ("backup.encrypt", "true", "true"), ("home.open", "false", "false"),
                      ("network.allow-servers", "true", "true"), ("transcribe.auto", "false", "false"),
                      ("transcribe.language", "DE", "\"de\"")]
        for (key, value, _) in values {
            let set = try await settings(["set", key, value], file)
            #expect(set.status == 0, "\(key): \(set)")
        }
        var text = try String(contentsOf: file, encoding: .utf8)
        try (text.replacingOccurrences(of: "list.sort", with: "# mine, kept\nlist.sort")).write(to: file, atomically: false, encoding: .utf8)
        #expect(try await settings(["set", "play.loudness", "-20"], file).status == 0)

        // Then the file is private, holds each as `key = value`, kept the comment, and the listing
        // says where each comes from
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        let folderMode = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)[.posixPermissions] as? Int
        #expect(mode == 0o600 && folderMode == 0o700)
        text = try String(contentsOf: file, encoding: .utf8)
        for (key, _, written) in values where key != "play.loudness" { #expect(text.contains("\(key) = \(written)\n"), "\(text)") }
        #expect(text.contains("play.loudness = -20\n") && text.contains("# mine, kept\nlist.sort"), "\(text)")
        let shown = try await settings([], file)
        #expect(shown.status == 0 && shown.output.contains("desktop.show-titles    true"), "\(shown.output)")
        #expect(shown.output.contains("\(file.path) line "), "\(shown.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try await settings(["--json"], file).output.utf8)) as? [[String: Any]])
        #expect(json.allSatisfy { $0["source"] as? String == "file" && $0["line"] is Int }, "\(json)")
        #expect(json.first { $0["key"] as? String == "play.loudness" }?["value"] as? Double == -20)

        // And each unset goes back to its default, the comment still there
        for (key, _, _) in values {
            let unset = try await settings(["unset", key], file)
            #expect(unset.status == 0, "\(key): \(unset)")
        }
        text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("# mine, kept") && !values.contains { text.contains($0.0 + " =") }, "\(text)")
        let after = try #require(try JSONSerialization.jsonObject(with: Data(try await settings(["--json"], file).output.utf8)) as? [[String: Any]])
        #expect(after.allSatisfy { $0["source"] as? String == "default" }, "\(after)")
    }

    @Test("an unknown key or a value the key does not take is refused (64) naming the valid ones, quoting at most a line of a 128 KiB one, and nothing is written")
    func refusals() async throws {
        let file = place()
        let key = try await settings(["set", "desktop.show-title", "true"], file)
        #expect(key.status == 64 && key.error.contains("desktop.show-titles, clip.purpose"), "\(key)")
        let bool = try await settings(["set", "desktop.show-titles", "yes"], file)
        #expect(bool.status == 64 && bool.error.contains("true or false"), "\(bool)")
        let purpose = try await settings(["set", "clip.purpose", "boredom"], file)
        #expect(purpose.status == 64 && purpose.error.contains("motivational, craving, reflection, milestone"), "\(purpose)")
        let loudness = try await settings(["set", "play.loudness", "0"], file)
        #expect(loudness.status == 64 && loudness.error.contains("from -30 to -10"), "\(loudness)")
        // A language Whisper does not know, by the code a person might guess: the fix named.
        for code in ["english", "xx", "yue"] {
            let language = try await settings(["set", "transcribe.language", code], file)
            #expect(language.status == 64 && language.error.contains("transcribe.language takes auto, or the code of a language Whisper knows"),
                    "\(code): \(language)")
        }
        let unset = try await settings(["unset", "volume"], file)
        #expect(unset.status == 64, "\(unset)")
        // A value and a key as long as the kernel lets an argument be: a few hundred bytes said
        let word = String(repeating: "z", count: 128 * 1024 - 2)
        for long in [["set", "list.sort", word], ["set", word, "true"]] {
            let refused = try await settings(long, file)
            #expect(refused.status == 64 && refused.error.utf8.count < 600, "\(refused.error.utf8.count) bytes: \(refused)")
        }
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("list.sort, clip.purpose and backup.encrypt are honoured, and a flag wins over each")
    func honoured() async throws {
        // Given a library of two clips, "A" older than "B"
        let library = try await Fixture.library(titles: ["A", "B"])
        let path = library.url.path, none = place()
        let settings = try file("""
            list.sort = "title"   # alphabetical
            clip.purpose = "craving"
            backup.encrypt = true

            """)

        // Then list sorts by title unless --sort says otherwise
        let titles = { (outcome: Outcome) in outcome.output.split(separator: "\n").dropFirst().map { String($0.split(separator: " ", omittingEmptySubsequences: true)[2]) } }
        #expect(titles(try await Outcome.of(["list", "--library", path], settings: settings)) == ["A", "B"])
        let recent = try await Outcome.of(["list", "--library", path], settings: none)
        let flagged = try await Outcome.of(["list", "--sort", "recent", "--library", path], settings: settings)
        #expect(titles(flagged) == titles(recent) && titles(recent) == ["B", "A"], "\(recent.output)")

        // And an import's clip gets the purpose unless --purpose (even none) is given
        for (extra, expected) in [([String](), RecordingPurpose.craving), (["--purpose", "milestone"], .milestone), (["--purpose", "none"], nil)] {
            let parsed = try CraveyCommands.Cravey.parseAsRoot(["import", "talk.wav", "--library", path] + extra)
            let imported = try #require(parsed as? ImportOptions)
            let metadata = try imported.metadata.metadata(with: Settings(at: settings))
            #expect(metadata.purpose == expected, "\(extra)")
        }

        // And a backup is encrypted unless --no-encrypt
        let passphrase = temporaryFolder().appendingPathComponent("passphrase")
        try Data("correct horse\n".utf8).write(to: passphrase)
        let descriptor = open(passphrase.path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let encrypted = temporaryFolder().appendingPathComponent("b.age"), plain = temporaryFolder().appendingPathComponent("b.tar")
        let backedUp = try await Outcome.of(["backup", "--output", encrypted.path, "--passphrase-fd", "\(descriptor)", "--library", path],
                                            settings: settings)
        #expect(backedUp.status == 0, "\(backedUp)")
        let plainly = try await Outcome.of(["backup", "--no-encrypt", "--output", plain.path, "--library", path], settings: settings)
        #expect(plainly.status == 0, "\(plainly)")
        #expect(try Data(contentsOf: encrypted).starts(with: Data("age-encryption.org/v1\n".utf8)))
        // A tar file: "ustar" at byte 257 of its first header
        #expect(try Data(contentsOf: plain).dropFirst(257).starts(with: Data("ustar".utf8)))
    }

    @Test("a file damaged by hand is named with its line by the commands that read it and ignored (defaults hold); set and unset refuse to rewrite it (64)")
    func damaged() async throws {
        // Given a library and a settings file with a good line and two mistakes
        let library = try await Fixture.library(titles: ["A", "B"])
        let file = try file("""
            list.sort = "title"
            desktop.show-titles = yes
            colour = "red"

            """)
        let before = try Data(contentsOf: file)

        // When a command reads it
        let list = try await Outcome.of(["list", "--library", library.url.path], settings: file)
        let recent = try await Outcome.of(["list", "--library", library.url.path], settings: place())

        // Then it names each mistake by its line, and the whole file is ignored
        #expect(list.status == 0 && list.error.contains("line 2: 'yes' is not a value") && list.error.contains("desktop.show-titles takes true or false"), "\(list)")
        #expect(list.error.contains("line 3: 'colour' is not a setting"), "\(list)")
        #expect(list.error.contains("ignored"), "\(list)")
        #expect(list.output == recent.output, "the good line was honoured from a damaged file")
        let shown = try await settings([], file)
        let sortLine = shown.output.split(separator: "\n").first { $0.hasPrefix("list.sort") } ?? ""
        #expect(sortLine.contains("\"recent\"") && sortLine.hasSuffix("default"), "\(shown.output)")

        // And set and unset refuse to touch it
        let set = try await settings(["set", "play.loudness", "-20"], file)
        let unset = try await settings(["unset", "list.sort"], file)
        #expect(set.status == 64 && set.error.contains("line 2"), "\(set)")
        #expect(unset.status == 64, "\(unset)")
        #expect(try Data(contentsOf: file) == before)
    }

    /// Whether `text` holds a byte or character that a terminal takes as a command: ESC, BEL, CSI (C1).
    func holdsControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || (0x80...0x9F).contains($0.value) }
    }

    @Test("what a settings file holds reaches the terminal escaped (escape sequences, BEL, C1 controls: in a key, a value, after it, a line, and the file's own path) and cut to a line however long")
    func hostileLinesEscaped() async throws {
        // Given settings files whose bad lines hold terminal commands, one in a folder whose name holds one too
        let lines = [
            "\u{1B}]0;owned\u{07}\u{1B}[2J = true",
            "list.sort = \u{1B}[31mred",
            "desktop.show-titles = true \u{9B}1;31m",
            "\u{1B}P+q544e\u{1B}\\",
            String(repeating: "\u{1B}[5m", count: 5_000),
        ]
        let plain = try file(lines.joined(separator: "\n") + "\n")
        let named = try file("play.loudness = loud\u{1B}[8m\n", folderName: "conf\u{1B}]2;pwned\u{07}")
        for file in [plain, named] {
            // When a command reads it, and `settings set` refuses to rewrite it
            let list = try await Outcome.of(["list", "--library", temporaryLibrary().path], settings: file)
            let set = try await settings(["set", "play.loudness", "-20"], file)
            let show = try await settings([], file)

            // Then the mistakes are named, escaped, and no longer than a line each
            #expect(list.status == 0 && list.error.contains("ignored") && list.error.contains("<U+001B>"), "\(list)")
            #expect(set.status == 64 && set.error.contains("mistake"), "\(set)")
            for outcome in [list, set, show] {
                #expect(!holdsControls(outcome.error) && !holdsControls(outcome.output), "\(outcome.error.debugDescription)")
            }
            #expect(list.error.utf8.count < 6_000, "\(list.error.utf8.count) bytes")
            #expect(set.error.utf8.count < 6_000, "\(set.error.utf8.count) bytes")
            let refusal = set.error.split(separator: "\n").last ?? ""
            #expect(refusal.contains("has a mistake") && refusal.utf8.count < 1_000, "\(refusal.utf8.count) bytes: \(refusal)")
        }
    }
}
