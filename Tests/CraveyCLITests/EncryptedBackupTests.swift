import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey backup --encrypt` and the restore of an encrypted backup, checked against the real
/// `age` (Debian's 1.1.1), whose passphrase prompt is typed at on a pseudo-terminal: each opens
/// what the other wrote. (A wrong passphrase or one byte changed anywhere restoring nothing: in
/// process, CraveyCommandsTests' EncryptedRestoreTests.)
@Suite("Encrypted backups", .temporaryFiles)
struct EncryptedBackupTests {
    static let passphrase = "correct horse battery staple"

    /// A library of two short clips and a 20 s one (several 64 KiB chunks once encrypted).
    func library() async throws -> RecordingLibrary {
        let library = try await Fixture.library(titles: ["Don't buy weed today", "Breathe"])
        let long = try await Cravey.run(["import", try await Fixture.audio(seconds: 20).path, "--title", "Day 30", "--library", library.url.path])
        try #require(long.status == 0, "\(long.error)")
        return library
    }

    /// The environment that gives the passphrase as a script does: a file named by CRAVEY_PASSPHRASE_FILE.
    func passphraseFile(_ passphrase: String = passphrase) throws -> [String: String] {
        let file = temporaryFolder().appendingPathComponent("passphrase-\(UUID().uuidString.prefix(8))")
        try Data((passphrase + "\n").utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return ["CRAVEY_PASSPHRASE_FILE": file.path]
    }

    /// Runs `age` with `arguments` on a pseudo-terminal that is its controlling terminal, typing
    /// `passphrase` at each of its `prompts` passphrase prompts.
    func age(_ arguments: [String], typing passphrase: String, prompts: Int) async throws -> (status: Int32, shown: String) {
        let terminal = try PseudoTerminal("/usr/bin/setsid", ["--ctty", "--wait", "age"] + arguments,
                                          environment: ProcessInfo.processInfo.environment)
        for prompt in 1...prompts {
            let asked = try await offPool {
                terminal.waitUntilShown(within: 30) { $0.components(separatedBy: "passphrase").count > prompt }
            }
            try #require(asked, "age did not ask: \(terminal.output)")
            terminal.type(passphrase + "\r")
        }
        let shown = try await offPool { terminal.waitForExit() }
        return (terminal.process.terminationStatus, shown)
    }

    @Test("a backup --encrypt is an age file that age -d (typed at on a terminal) opens into a tar that tar lists, and it restores with the passphrase from a file descriptor")
    func ageOpensCraveysBackup() async throws {
        // Given an encrypted backup made with the passphrase typed twice at a terminal
        let library = try await library()
        let archive = temporaryFolder().appendingPathComponent("clips.age")
        let terminal = try Cravey.startOnTerminal(["backup", "--encrypt", "--output", archive.path, "--library", library.url.path])
        for prompt in ["Passphrase for the new backup", "The same passphrase again"] {
            let asked = try await offPool { terminal.waitUntilShown(within: 30) { $0.contains(prompt) } }
            try #require(asked, "\(terminal.output)")
            terminal.type(Self.passphrase + "\r")
        }
        let shown = try await offPool { terminal.waitForExit() }
        try #require(terminal.process.terminationStatus == 0, "\(shown)")

        // Then it is private, never shows the passphrase, holds no title in the clear, and is age's format
        #expect(!shown.contains(Self.passphrase), "\(shown)")
        let mode = try FileManager.default.attributesOfItem(atPath: archive.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let bytes = try Data(contentsOf: archive)
        #expect(bytes.starts(with: Data("age-encryption.org/v1\n-> scrypt ".utf8)))
        #expect(bytes.range(of: Data("Don't buy weed today".utf8)) == nil && bytes.range(of: Data("manifest.json".utf8)) == nil)

        // When the real age decrypts it, the passphrase typed at its prompt
        let tar = temporaryFolder().appendingPathComponent("clips.tar")
        let decrypted = try await age(["-d", "-o", tar.path, archive.path], typing: Self.passphrase, prompts: 1)

        // Then it is a tar that tar lists, with every clip's record
        #expect(decrypted.status == 0, "\(decrypted.shown)")
        let listing = try await run("tar", ["-tf", tar.path])
        #expect(listing.status == 0 && listing.output.contains("cravey-backup/manifest.json"), "\(listing.error)")
        #expect(listing.output.split(separator: "\n").filter { $0.hasSuffix(".json") && $0.contains("Recordings/") }.count == 3)

        // And cravey restores it, the passphrase on a file descriptor, into a library not there yet
        let restored = temporaryLibrary()
        let passphraseFile = temporaryFolder().appendingPathComponent("secret")
        try Data((Self.passphrase + "\n").utf8).write(to: passphraseFile)
        let restore = try await run("/bin/sh", ["-c", "exec \"$0\" restore \"$1\" --library \"$2\" --passphrase-fd 3 3<\"$3\"",
                                          Cravey.executable, archive.path, restored.path, passphraseFile.path],
                              environment: Cravey.environment())
        #expect(restore.status == 0 && restore.error.contains("Restored 3 clips"), "\(restore.error)")
        let copy = try RecordingLibrary(at: restored)
        for row in try library.recordings() {
            let back = try #require(try copy.recording(row.id))
            #expect(back.title == row.title)
            #expect(try Data(contentsOf: restored.appendingPathComponent(back.filePath)) == Data(contentsOf: library.url.appendingPathComponent(row.filePath)))
        }
    }

    @Test("a cravey tar encrypted by age -p restores with its passphrase; a mistyped second passphrase writes nothing (64)")
    func craveyOpensAgesFile() async throws {
        // Given a plain backup that age -p encrypts (its passphrase typed twice at its prompts)
        let library = try await library()
        let tar = temporaryFolder().appendingPathComponent("clips.tar")
        #expect(try await Cravey.run(["backup", "--output", tar.path, "--library", library.url.path]).status == 0)
        let encrypted = temporaryFolder().appendingPathComponent("clips.tar.age")
        let made = try await age(["-p", "-o", encrypted.path, tar.path], typing: Self.passphrase, prompts: 2)
        try #require(made.status == 0, "\(made.shown)")

        // When cravey restores it
        let restored = temporaryLibrary()
        let restore = try await Cravey.run(["restore", encrypted.path, "--json", "--library", restored.path], environment: try passphraseFile())

        // Then every clip is back
        #expect(restore.status == 0, "\(restore.error)")
        let summary = try JSONSerialization.jsonObject(with: Data(restore.output.utf8)) as? [String: Any]
        #expect((summary?["restored"] as? [Any])?.count == 3)

        // And two passphrases that differ at the terminal write nothing
        let archive = temporaryFolder().appendingPathComponent("never.age")
        let terminal = try Cravey.startOnTerminal(["backup", "--encrypt", "--output", archive.path, "--library", library.url.path])
        for (prompt, typed) in [("Passphrase for the new backup", "one"), ("The same passphrase again", "two")] {
            let asked = try await offPool { terminal.waitUntilShown(within: 30) { $0.contains(prompt) } }
            try #require(asked, "\(terminal.output)")
            terminal.type(typed + "\r")
        }
        let shown = try await offPool { terminal.waitForExit() }
        #expect(terminal.process.terminationStatus == 64 && shown.contains("differ"), "\(shown)")
        #expect(!FileManager.default.fileExists(atPath: archive.path))

        // And Ctrl-C at the hidden prompt, some of it typed and edited (never shown), cancels: 130, nothing written
        let cancelled = try Cravey.startOnTerminal(["backup", "--encrypt", "--output", archive.path, "--library", library.url.path])
        let prompted = try await offPool { cancelled.waitUntilShown(within: 30) { $0.contains("Passphrase for the new backup") } }
        try #require(prompted, "\(cancelled.output)")
        cancelled.type("secreX\u{7F}\u{3}")
        let ended = try await offPool { cancelled.waitForExit() }
        #expect(cancelled.process.terminationStatus == 130 && ended.contains("cancelled at the passphrase prompt"), "\(ended)")
        #expect(!ended.contains("secre") && !FileManager.default.fileExists(atPath: archive.path))
    }
}
