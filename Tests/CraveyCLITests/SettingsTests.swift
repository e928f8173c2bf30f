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
                                                           "backup.encrypt", "home.open", "network.allow-servers", "transcribe.auto",
                                                           "transcribe.language"])
        #expect(defaults.allSatisfy { $0["source"] as? String == "default" }, "\(defaults)")
        #expect(!FileManager.default.fileExists(atPath: file.path), "listing made a file")
        // (and the help names each with its default: network.allow-servers was once left out of it)
        let help = try await settings(["--help"], environment).output.replacingOccurrences(of: "\n", with: " ")
        for key in defaults.compactMap({ $0["key"] as? String }) { #expect(help.contains("\(key) (default "), "\(key) not in the help") }

        // When every key is set
        let values = [("desktop.show-titles", "true", "true"), ("clip.purpose", "craving", "\"craving\""), ("play.loudness", "-23", "-23"),
                      ("list.sort", "most-played", "\"most-played\""), ("backup.encrypt", "true", "true"), ("home.open", "false", "false"),
                      ("network.allow-servers", "true", "true"), ("transcribe.auto", "false", "false"),
                      ("transcribe.language", "DE", "\"de\"")]
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
        // A language Whisper does not know, by the code a person might guess: the fix named.
        for code in ["english", "xx", "yue"] {
            let language = try await settings(["set", "transcribe.language", code], environment)
            #expect(language.status == 64 && language.error.contains("transcribe.language takes auto, or the code of a language Whisper knows"),
                    "\(code): \(language.error)")
        }
        let unset = try await settings(["unset", "volume"], environment)
        #expect(unset.status == 64, "\(unset.error)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("list.sort, clip.purpose, backup.encrypt and home.open are honoured, and a flag wins over each")
    func honoured() async throws {
        // Given a library of two clips, "A" older than "B"
        let library = try await Fixture.library(titles: ["A", "B"])
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
        let wav = try await Fixture.audio(seconds: 0.3)
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
        #expect(try await run("tar", ["-tf", plain.path]).status == 0)

        // And `cravey` alone not on a terminal prints its help, whatever home.open says (HomeScreenTests: on one)
        let alone = try await Cravey.run([], environment: settingsFile)
        #expect(alone.status == 0 && alone.output.contains("USAGE"), "\(alone.output)")
    }

    @Test("a file damaged by hand is named with its line by the commands that read it and ignored (defaults hold); set and unset refuse to rewrite it (64)")
    func damaged() async throws {
        // Given a library and a settings file with a good line and two mistakes
        let library = try await Fixture.library(titles: ["A", "B"])
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

/// A settings file is believed only in a state only its owner could have made: read bounded
/// (never more than its limit), never through a link, and not when others can change it or its
/// folder (it can turn `network.allow-servers` on). Such a file stops every command (77) with
/// a message naming it and the fix; what a file holds is shown escaped and cut.
@Suite("Settings file state", .temporaryFiles)
struct SettingsFileStateTests {
    /// A settings folder of the test's own holding `text` (file mode 0600, folder 0700), and the file.
    func config(_ text: String, folderName: String = "config") throws -> (environment: [String: String], file: URL) {
        let home = temporaryFolder().appendingPathComponent("\(folderName)-\(UUID().uuidString.prefix(8))")
        let folder = home.appendingPathComponent("cravey")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = folder.appendingPathComponent("settings.toml")
        try Data(text.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return (["XDG_CONFIG_HOME": home.path], file)
    }

    /// What the file at `url` is, without reading it (a pipe would hold a read): its link, type, size and time.
    func fingerprint(_ url: URL) -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        let link = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)
        return [link, attributes?[.type], attributes?[.size], attributes?[.modificationDate]].map { "\($0.map { "\($0)" } ?? "-")" }.joined(separator: " ")
    }

    /// Whether `text` holds a byte or character that a terminal takes as a command: ESC, BEL, CSI (C1).
    func holdsControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || (0x80...0x9F).contains($0.value) }
    }

    @Test("a settings file that is a link, not a regular file, larger than 64 KiB (a sparse 2 GB one: at once, in little memory), or that others can change (the file 0666 or 0620, its folder 0777 or 0770) stops every command (77) naming the file and the fix; --help still answers; nothing is written")
    func unsafeFilesRefused() async throws {
        let library = temporaryLibrary().path
        let secret = temporaryFolder().appendingPathComponent("elsewhere.txt")
        try Data("s3cr3t-passphrase-8841\n".utf8).write(to: secret)
        let allowing = "network.allow-servers = true\nlist.sort = \"title\"\n"
        var cases: [(what: String, environment: [String: String], file: URL, expected: [String])] = []

        let large = try config("")
        let handle = try FileHandle(forWritingTo: large.file)
        try handle.truncate(atOffset: 2 << 30)
        try handle.close()
        cases.append(("a sparse 2 GB file", large.environment, large.file, ["2147483648 bytes", "65536", "mv '"]))

        let linked = try config("")
        try FileManager.default.removeItem(at: linked.file)
        try FileManager.default.createSymbolicLink(at: linked.file, withDestinationURL: secret)
        cases.append(("a link to another file", linked.environment, linked.file, ["symbolic link", "cp --remove-destination"]))

        let pipe = try config("")
        try FileManager.default.removeItem(at: pipe.file)
        try #require(mkfifo(pipe.file.path, 0o600) == 0)
        cases.append(("a named pipe", pipe.environment, pipe.file, ["not a regular file"]))

        for mode in [0o666, 0o620] {
            let open = try config(allowing)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: open.file.path)
            cases.append(("the file mode \(String(mode, radix: 8))", open.environment, open.file,
                          ["changed by other users", "mode \(String(mode, radix: 8))", "chmod 600 '\(open.file.path)'", "network.allow-servers"]))
        }
        for mode in [0o777, 0o770] {
            let open = try config(allowing)
            let folder = open.file.deletingLastPathComponent()
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: folder.path)
            cases.append(("the folder mode \(String(mode, radix: 8))", open.environment, open.file,
                          ["its folder \(folder.path) can be changed by other users", "chmod 700 '\(folder.path)'"]))
        }

        for (what, environment, file, expected) in cases {
            let before = fingerprint(file)
            // When a library command, a media command and the settings commands run
            let timing = temporaryFolder().appendingPathComponent("time-\(UUID().uuidString.prefix(8))")
            let started = Date()
            let list = try await run("/usr/bin/time", ["-f", "%M", "-o", timing.path, Cravey.executable, "list", "--library", library],
                                            environment: Cravey.environment(environment))
            let seconds = Date().timeIntervalSince(started)
            let kilobytes = Int(try String(contentsOf: timing, encoding: .utf8).split(separator: "\n").last ?? "") ?? .max
            let devices = try await Cravey.run(["devices", "--json"], environment: environment)
            let show = try await Cravey.run(["settings"], environment: environment)
            let set = try await Cravey.run(["settings", "set", "play.loudness", "-20"], environment: environment)
            let help = try await Cravey.run(["settings", "--help"], environment: environment)

            // Then each stops (77) before doing anything, naming the file, why and the fix
            for result in [list, devices, show, set] {
                #expect(result.status == 77 && result.error.contains(file.path) && result.error.contains("was not read"),
                        "\(what): \(result.status) \(result.error)")
                for words in expected { #expect(result.error.contains(words), "\(what): no \(words) in \(result.error)") }
                #expect(!result.error.contains("s3cr3t") && !result.output.contains("s3cr3t"), "\(what): \(result.error)")
                #expect(result.error.utf8.count < 1000, "\(what): \(result.error.utf8.count) bytes")
            }
            // At once and in little memory, whatever the file's size (it was 14 s and 2.1 GB)
            #expect(seconds < 10 && kilobytes < 200_000, "\(what): \(seconds) s, \(kilobytes) KB")
            #expect(help.status == 0 && help.output.contains("77"), "\(what): \(help.status) \(help.error)")
            #expect(!FileManager.default.fileExists(atPath: library), "\(what): the library was made")
            #expect(fingerprint(file) == before, "\(what): the file changed")
        }
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
        let plain = try config(lines.joined(separator: "\n") + "\n")
        let named = try config("play.loudness = loud\u{1B}[8m\n", folderName: "conf\u{1B}]2;pwned\u{07}")
        for (environment, file) in [plain, named] {
            // When a command reads it, and `settings set` refuses to rewrite it
            let list = try await Cravey.run(["list", "--library", temporaryLibrary().path], environment: environment)
            let set = try await Cravey.run(["settings", "set", "play.loudness", "-20"], environment: environment)
            let show = try await Cravey.run(["settings"], environment: environment)

            // Then the mistakes are named, escaped, and no longer than a line each
            #expect(list.status == 0 && list.error.contains("ignored") && list.error.contains("<U+001B>"), "\(list.error)")
            #expect(set.status == 64 && set.error.contains("mistake"), "\(set.error)")
            for result in [list, set, show] {
                #expect(!holdsControls(result.error) && !holdsControls(result.output), "\(result.error.debugDescription)")
            }
            #expect(list.error.utf8.count < 6_000, "\(list.error.utf8.count) bytes")
            #expect(set.error.utf8.count < 6_000, "\(set.error.utf8.count) bytes")
            let refusal = set.error.split(separator: "\n").last ?? ""
            #expect(refusal.contains("has a mistake") && refusal.utf8.count < 1_000, "\(refusal.utf8.count) bytes: \(refusal)")
            _ = file
        }
    }
}
