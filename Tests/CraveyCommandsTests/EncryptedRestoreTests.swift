import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// The restore of an encrypted backup that must not open, run in process (``Outcome``) as
/// `cravey-media` runs it, the passphrase given as a script gives it: on a file descriptor, a
/// pipe's. (What `age` opens of cravey's and cravey of age's, typed at on a pseudo-terminal: the
/// CLI's EncryptedBackupTests.)
@Suite("Encrypted backups, in process", .temporaryFiles)
struct EncryptedRestoreTests {
    static let passphrase = "correct horse battery staple"

    /// A library of two short clips and a 20 s one (several 64 KiB chunks once encrypted).
    func library() async throws -> RecordingLibrary {
        let library = try await Fixture.library(titles: ["Don't buy weed today", "Breathe"])
        let long = try await Outcome.of(["import", try await Fixture.audio(seconds: 20).path, "--title", "Day 30", "--library", library.url.path])
        try #require(long.status == 0, "\(long)")
        return library
    }

    @Test("a wrong passphrase, and one byte flipped in the header, the middle or the last chunk, restore nothing (65): the library is unchanged byte for byte, and none is made where there was none")
    func refusals() async throws {
        // Given an encrypted backup, a library holding one other clip, and broken copies
        let library = try await library()
        let archive = temporaryFolder().appendingPathComponent("clips.age")
        let made = try await Outcome.of(passphrase: Self.passphrase, ["backup", "--encrypt", "--output", archive.path, "--library", library.url.path])
        try #require(made.status == 0, "\(made.error)")
        let bytes = try Data(contentsOf: archive)
        let headerEnd = try #require(bytes.range(of: Data("\n--- ".utf8))).upperBound
        try #require(bytes.count > headerEnd + 3 * 65_552, "only \(bytes.count) bytes: too few chunks")
        func flipped(_ name: String, at offset: Int) throws -> URL {
            var copy = bytes
            copy[offset] ^= 0x20
            let url = temporaryFolder().appendingPathComponent(name)
            try copy.write(to: url)
            return url
        }
        let broken = [
            try flipped("salt.age", at: 34),                          // in the scrypt stanza's salt
            try flipped("mac.age", at: headerEnd + 5),                // in the header's MAC
            try flipped("middle.age", at: headerEnd + 44 + 65_552 + 1_000),  // inside the second chunk
            try flipped("last.age", at: bytes.count - 3),             // the last chunk's tag
        ]
        // (made by cravey, and held open by this test to its end, as a program beside it would:
        // no command's connection is then the last one closed, so none folds SQLite's log into
        // library.sqlite, which is no change of its contents, while it is compared; in processes
        // of their own, each command's was the last, and a read first folded it)
        let target = temporaryLibrary()
        #expect(try await Outcome.of(["import", try await Fixture.audio(seconds: 0.3).path, "--title", "Mine", "--library", target.path]).status == 0)
        let held = try RecordingLibrary(at: target)
        let before = try Fixture.bytes(of: target)

        // When each is restored with the right passphrase, and the good one with a wrong passphrase
        let attempts = broken.map { ($0, Self.passphrase) } + [(archive, "correct horse battery stapler")]
        for (file, passphrase) in attempts {
            let into = try await Outcome.of(passphrase: passphrase, ["restore", file.path, "--library", target.path])

            // Then each is refused, saying so, and nothing changed
            #expect(into.status == 65 && into.error.contains("Nothing was restored"), "\(file.lastPathComponent): \(into.status) \(into.error)")
            let after = try Fixture.bytes(of: target)
            #expect(after == before, "\(file.lastPathComponent): \(Set(after.keys).symmetricDifference(before.keys)) \(after.keys.filter { after[$0] != before[$0] })")
        }
        // And a backup whose damage shows only at its very end makes no library where there was none
        let fresh = temporaryLibrary()
        let new = try await Outcome.of(passphrase: Self.passphrase, ["restore", broken[3].path, "--library", fresh.path])
        #expect(new.status == 65 && !FileManager.default.fileExists(atPath: fresh.path), "\(new.error)")
        let wrong = try await Outcome.of(passphrase: "wrong", ["restore", archive.path, "--library", target.path])
        #expect(wrong.error.contains("passphrase does not open"), "\(wrong.error)")

        // And an age file in ASCII armor (`age -a`) is named as such, with the way to open it
        let armored = temporaryFolder().appendingPathComponent("armored.age")
        try Data(("-----BEGIN AGE ENCRYPTED FILE-----\n" + bytes.prefix(96).base64EncodedString() + "\n-----END AGE ENCRYPTED FILE-----\n").utf8)
            .write(to: armored)
        let refused = try await Outcome.of(passphrase: Self.passphrase, ["restore", armored.path, "--library", target.path])
        #expect(refused.status == 65 && refused.error.contains("ASCII armor") && refused.error.contains("age -d"), "\(refused.error)")
        #expect(try Fixture.bytes(of: target) == before)
        withExtendedLifetime(held) {}
    }
}
