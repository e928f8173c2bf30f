import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey settings`: each key set, shown, honoured and unset, in a file a person edits by hand;
/// refusals name the valid keys and values; a file damaged by hand is reported by its line and
/// ignored, never rewritten.
@Suite("Settings", .temporaryFiles)
struct SettingsTests {
    /// A settings folder of the test's own (empty: no file yet), and the file's place in it.
    func config() -> (environment: [String: String], file: URL) {
        let folder = temporaryFolder().appendingPathComponent("config-\(UUID().uuidString.prefix(8))")
        return (["XDG_CONFIG_HOME": folder.path], folder.appendingPathComponent("cravey/settings.toml"))
    }

    func settings(_ arguments: [String], _ environment: [String: String]) async throws -> CommandResult {
        try await Cravey.run(["settings"] + arguments, environment: environment)
    }

    @Test("each key is set (file mode 0600 in a 0700 folder, a person's comments kept), shown with its line, and unset back to its default")
    func setShowUnset() async throws {
        // Given no settings file, then one with a comment of the person's own
        let (environment, file) = config()
        let listed = try await settings(["--json"], environment)
        let defaults = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(defaults.map { $0["key"] as? String } == ["desktop.show-titles", "clip.purpose", "play.loudness", "list.sort",
                                                           "backup.encrypt", "home.open", "network.allow-servers"])
        #expect(defaults.allSatisfy { $0["source"] as? String == "default" }, "\(defaults)")
        #expect(!FileManager.default.fileExists(atPath: file.path), "listing made a file")
        // (and the help names each with its default: network.allow-servers was once left out of it)
        let help = try await settings(["--help"], environment).output.replacingOccurrences(of: "\n", with: " ")
        for key in defaults.compactMap({ $0["key"] as? String }) { #expect(help.contains("\(key) (default "), "\(key) not in the help") }

        // When every key is set
        let values = [("desktop.show-titles", "true", "true"), ("clip.purpose", "craving", "\"craving\""), ("play.loudness", "-23", "-23"),
                      ("list.sort", "most-played", "\"most-played\""), ("backup.encrypt", "true", "true"), ("home.open", "false", "false"),
                      ("network.allow-servers", "true", "true")]
        for (key, value, _) in values {
            let set = try await settings(["set", key, value], environment)
            #expect(set.status == 0, "\(key): \(set.error)")
        }
        var text = try String(contentsOf: file, encoding: .utf8)
        try (text.replacingOccurrences(of: "list.sort", with: "# mine, kept\nlist.sort")).write(to: file, atomically: false, encoding: .utf8)
        #expect(try await settings(["set", "play.loudness", "-20"], environment).status == 0)

        // Then the file is private, holds each as `key = value`, kept the comment, and the listing
        // says where each comes from
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        let folderMode = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)[.posixPermissions] as? Int
        #expect(mode == 0o600 && folderMode == 0o700)
        text = try String(contentsOf: file, encoding: .utf8)
        for (key, _, written) in values where key != "play.loudness" { #expect(text.contains("\(key) = \(written)\n"), "\(text)") }
        #expect(text.contains("play.loudness = -20\n") && text.contains("# mine, kept\nlist.sort"), "\(text)")
        let shown = try await settings([], environment)
        #expect(shown.status == 0 && shown.output.contains("desktop.show-titles    true"), "\(shown.output)")
        #expect(shown.output.contains("\(file.path) line "), "\(shown.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try await settings(["--json"], environment).output.utf8)) as? [[String: Any]])
        #expect(json.allSatisfy { $0["source"] as? String == "file" && $0["line"] is Int }, "\(json)")
        #expect(json.first { $0["key"] as? String == "play.loudness" }?["value"] as? Double == -20)

        // And each unset goes back to its default, the comment still there
        for (key, _, _) in values {
            let unset = try await settings(["unset", key], environment)
            #expect(unset.status == 0, "\(key): \(unset.error)")
        }
        text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("# mine, kept") && !values.contains { text.contains($0.0 + " =") }, "\(text)")
        let after = try #require(try JSONSerialization.jsonObject(with: Data(try await settings(["--json"], environment).output.utf8)) as? [[String: Any]])
        #expect(after.allSatisfy { $0["source"] as? String == "default" }, "\(after)")
    }

    @Test("an unknown key or a value the key does not take is refused (64) naming the valid ones, and nothing is written")
    func refusals() async throws {
        let (environment, file) = config()
        let key = try await settings(["set", "desktop.show-title", "true"], environment)
        #expect(key.status == 64 && key.error.contains("desktop.show-titles, clip.purpose"), "\(key.error)")
        let bool = try await settings(["set", "desktop.show-titles", "yes"], environment)
        #expect(bool.status == 64 && bool.error.contains("true or false"), "\(bool.error)")
        let purpose = try await settings(["set", "clip.purpose", "boredom"], environment)
        #expect(purpose.status == 64 && purpose.error.contains("motivational, craving, reflection, milestone"), "\(purpose.error)")
        let loudness = try await settings(["set", "play.loudness", "0"], environment)
        #expect(loudness.status == 64 && loudness.error.contains("from -30 to -10"), "\(loudness.error)")
        let unset = try await settings(["unset", "volume"], environment)
        #expect(unset.status == 64, "\(unset.error)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("list.sort, clip.purpose, backup.encrypt and home.open are honoured, and a flag wins over each")
    func honoured() async throws {
        // Given a library of two clips, "A" older than "B"
        let library = try Fixture.library(titles: ["A", "B"])
        let path = library.url.path
        let settingsFile = try Cravey.settings("""
            list.sort = "title"   # alphabetical
            clip.purpose = "craving"
            backup.encrypt = true
            home.open = true

            """)

        // Then list sorts by title unless --sort says otherwise
        let titles = { (result: CommandResult) in result.output.split(separator: "\n").dropFirst().map { String($0.split(separator: " ", omittingEmptySubsequences: true)[2]) } }
        #expect(titles(try await Cravey.run(["list", "--library", path], environment: settingsFile)) == ["A", "B"])
        let recent = try await Cravey.run(["list", "--library", path])
        let flagged = try await Cravey.run(["list", "--sort", "recent", "--library", path], environment: settingsFile)
        #expect(titles(flagged) == titles(recent))

        // And an import gets the purpose unless --purpose (even none) is given
        let wav = try Fixture.audio(seconds: 0.3)
        for (extra, expected) in [([String](), "craving"), (["--purpose", "milestone"], "milestone"), (["--purpose", "none"], nil)] {
            let imported = try await Cravey.run(["import", wav.path, "--json", "--library", path] + extra, environment: settingsFile)
            let row = try #require(try JSONSerialization.jsonObject(with: Data(imported.output.utf8)) as? [String: Any], "\(imported.error)")
            #expect(row["purpose"] as? String == expected, "\(extra): \(row)")
        }

        // And a backup is encrypted unless --no-encrypt
        let passphrase = temporaryFolder().appendingPathComponent("passphrase")
        try Data("correct horse\n".utf8).write(to: passphrase)
        var withPassphrase = settingsFile
        withPassphrase["CRAVEY_PASSPHRASE_FILE"] = passphrase.path
        let encrypted = temporaryFolder().appendingPathComponent("b.age")
        let plain = temporaryFolder().appendingPathComponent("b.tar")
        #expect(try await Cravey.run(["backup", "--output", encrypted.path, "--library", path], environment: withPassphrase).status == 0)
        #expect(try await Cravey.run(["backup", "--no-encrypt", "--output", plain.path, "--library", path], environment: settingsFile).status == 0)
        #expect(try Data(contentsOf: encrypted).starts(with: Data("age-encryption.org/v1\n".utf8)))
        #expect(try run("tar", ["-tf", plain.path]).status == 0)

        // And `cravey` alone not on a terminal prints its help, whatever home.open says (HomeScreenTests: on one)
        let alone = try await Cravey.run([], environment: settingsFile)
        #expect(alone.status == 0 && alone.output.contains("USAGE"), "\(alone.output)")
    }

    @Test("a file damaged by hand is named with its line by the commands that read it and ignored (defaults hold); set and unset refuse to rewrite it (64)")
    func damaged() async throws {
        // Given a library and a settings file with a good line and two mistakes
        let library = try Fixture.library(titles: ["A", "B"])
        let environment = try Cravey.settings("""
            list.sort = "title"
            desktop.show-titles = yes
            colour = "red"

            """)
        let file = URL(fileURLWithPath: try #require(environment["XDG_CONFIG_HOME"])).appendingPathComponent("cravey/settings.toml")
        let before = try Data(contentsOf: file)

        // When a command reads it
        let list = try await Cravey.run(["list", "--library", library.url.path], environment: environment)
        let recent = try await Cravey.run(["list", "--library", library.url.path])

        // Then it names each mistake by its line, and the whole file is ignored
        #expect(list.status == 0 && list.error.contains("line 2: 'yes' is not a value") && list.error.contains("desktop.show-titles takes true or false"), "\(list.error)")
        #expect(list.error.contains("line 3: 'colour' is not a setting"), "\(list.error)")
        #expect(list.error.contains("ignored"), "\(list.error)")
        #expect(list.output == recent.output, "the good line was honoured from a damaged file")
        let shown = try await Cravey.run(["settings"], environment: environment)
        let sortLine = shown.output.split(separator: "\n").first { $0.hasPrefix("list.sort") } ?? ""
        #expect(sortLine.contains("\"recent\"") && sortLine.hasSuffix("default"), "\(shown.output)")

        // And set and unset refuse to touch it
        let set = try await Cravey.run(["settings", "set", "play.loudness", "-20"], environment: environment)
        let unset = try await Cravey.run(["settings", "unset", "list.sort"], environment: environment)
        #expect(set.status == 64 && set.error.contains("line 2"), "\(set.error)")
        #expect(unset.status == 64, "\(unset.error)")
        #expect(try Data(contentsOf: file) == before)
    }
}
