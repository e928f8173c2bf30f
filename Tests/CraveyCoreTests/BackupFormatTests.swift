@testable import CraveyCore
import CraveyTestSupport
import Foundation
import Testing

/// The two formats a backup is written in, checked against the tools a person checks it with.
@Suite("The backup's formats")
struct BackupFormatTests {
    /// `sha256sum`'s digest of `bytes` (run off the cooperative pool).
    func coreutilsDigest(of bytes: [UInt8]) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await run("/usr/bin/sha256sum", [file.path])
        guard result.status == 0 else { throw TestFailure("sha256sum failed: \(result.error)") }
        return String(result.output.prefix(64))
    }

    @Test("SHA-256 (OpenSSL's) agrees with sha256sum at every length around a block's edge, fed in any pieces",
          arguments: [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 1 << 20])
    func digest(length: Int) async throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let whole = SHA256()
        whole.update(bytes)
        let pieces = SHA256()
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...97))
            pieces.update(bytes[start..<end])
            start = end
        }
        let expected = try await coreutilsDigest(of: bytes)
        #expect(whole.hexDigest() == expected)
        #expect(pieces.hexDigest() == expected)
    }

    @Test("a header reads back as it was written: small sizes in octal, 8 GiB and more in base-256, folders")
    func headers() throws {
        for entry in [Tar.Entry(name: "cravey-backup/Recordings/audio.m4a", size: 13_419),
                      Tar.Entry(name: "cravey-backup/big.mp4", size: 9 << 30),
                      Tar.Entry(name: "cravey-backup/", size: 0, isFolder: true)] {
            let block = Tar.header(entry, modified: Date(timeIntervalSince1970: 1_790_000_000))
            #expect(block.count == Tar.blockSize)
            #expect(try Tar.entry(in: block) == entry)
        }
        #expect(try Tar.entry(in: [UInt8](repeating: 0, count: Tar.blockSize)) == nil)
    }

    @Test("a header with one bit changed is refused")
    func damagedHeader() throws {
        var block = Tar.header(Tar.Entry(name: "cravey-backup/manifest.json", size: 1000), modified: Date())
        block[130] ^= 0x01
        #expect(throws: Tar.Damage.self) { try Tar.entry(in: block) }
    }
}
