@testable import CraveyCore
import CraveyTestSupport
import Foundation
import SystemPackage
import Testing

/// Age keys (X25519), as a synced folder's files are encrypted (docs/sync.md), against the real
/// `age` and `age-keygen`: what cravey writes age opens with the key, and what age writes to the
/// key's recipient cravey opens.
@Suite("Age keys, against age", .temporaryFiles)
struct AgeKeyTests {
    /// `bytes` encrypted to `recipient` by cravey's writer, as a file's whole content.
    func encrypted(_ bytes: [UInt8], to recipient: AgeRecipient) throws -> Data {
        var body = Data()
        let writer = try AgeWriter(recipient: recipient) { body.append(contentsOf: $0) }
        try bytes.withUnsafeBytes { try writer.write($0) }
        var header = Data()
        try writer.finish { header.append(contentsOf: $0) }
        #expect(header.count == AgeWriter.recipientHeaderSize)
        return header + body
    }

    /// What cravey's reader makes of the age file at `url` with `identity`.
    func decrypted(_ url: URL, with identity: AgeIdentity) throws -> Data {
        let descriptor = try FileDescriptor.open(FilePath(url.path), .readOnly)
        defer { try? descriptor.close() }
        let reader = try AgeReader(descriptor) { try $0.fileKey(identity: identity) }
        var plain = Data()
        var buffer = [UInt8](repeating: 0, count: 70_000)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
            if count == 0 { return plain }
            plain.append(contentsOf: buffer[..<count])
        }
    }

    @Test("a file cravey encrypts to a new key's recipient is opened by age -d -i with the key, at every length around a chunk")
    func ageOpensCraveys() async throws {
        let identity = AgeIdentity()
        #expect(AgeIdentity(identity.description) == identity && AgeRecipient(identity.recipient.description) == identity.recipient)
        let keyFile = temporaryFolder().appendingPathComponent("key.txt")
        try Data("\(identity)\n".utf8).write(to: keyFile)
        // age-keygen -y gives the same recipient from the key
        let derived = try await run("age-keygen", ["-y", keyFile.path])
        #expect(derived.output.trimmingCharacters(in: .whitespacesAndNewlines) == identity.recipient.description, "\(derived.error)")
        for length in [0, 1, 65_535, 65_536, 65_537, 200_000] {
            let text = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            let file = temporaryFolder().appendingPathComponent("c-\(length).age")
            try encrypted(text, to: identity.recipient).write(to: file)
            let opened = try await run("age", ["-d", "-i", keyFile.path, file.path])
            #expect(opened.status == 0 && opened.output.utf8.count == length && Array(opened.output.utf8) == text, "\(length): \(opened.error)")
        }
    }

    @Test("a file age encrypts with -r to a key age-keygen made is opened by cravey with that key, and refused (wrongKey) with another; a passphrase's file is not a key's")
    func craveyOpensAges() async throws {
        let keyFile = temporaryFolder().appendingPathComponent("key.txt")
        try #require(try await run("age-keygen", ["-o", keyFile.path]).status == 0)
        let line = try String(contentsOf: keyFile, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") }
        let keyLine = try #require(line)
        let identity = try #require(AgeIdentity(String(keyLine)))
        let plain = temporaryFolder().appendingPathComponent("plain.txt")
        try Data(String(repeating: "seven boats came in before midnight\n", count: 3000).utf8).write(to: plain)
        let file = temporaryFolder().appendingPathComponent("by-age.age")
        // To two recipients, ours second: cravey finds its stanza among others.
        let other = AgeIdentity()
        try #require(try await run("age", ["-r", other.recipient.description, "-r", identity.recipient.description, "-o", file.path, plain.path]).status == 0)
        #expect(try decrypted(file, with: identity) == (try Data(contentsOf: plain)))
        #expect(throws: Age.Refusal.wrongKey) { try decrypted(file, with: AgeIdentity()) }

        let passphrased = temporaryFolder().appendingPathComponent("by-passphrase.age")
        var body = Data()
        let writer = try AgeWriter(passphrase: Array("pass".utf8), workFactor: 10) { body.append(contentsOf: $0) }
        var header = Data()
        try writer.finish { header.append(contentsOf: $0) }
        try (header + body).write(to: passphrased)
        #expect(throws: Age.Refusal.wrongKey) { try decrypted(passphrased, with: identity) }
    }

    @Test("a key or recipient with a wrong checksum, letter or length is no key", arguments: [
        "AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ", "age1", "AGE-SECRET-KEY-1", "", "age1b", "not a key",
    ])
    func malformedKeys(text: String) {
        #expect(AgeIdentity(text) == nil && AgeRecipient(text) == nil)
    }

    @Test("one letter changed in a key is caught by its checksum")
    func checksumCatchesALetter() {
        let text = AgeIdentity().description
        let index = text.index(text.startIndex, offsetBy: 20)
        let changed = text.replacingCharacters(in: index...index, with: text[index] == "Q" ? "P" : "Q")
        #expect(AgeIdentity(changed) == nil)
    }
}
