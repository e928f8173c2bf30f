@testable import CraveyCore
import CraveyTestSupport
import Foundation
import Testing

/// The backup's SHA-256 digest checked against coreutils' `sha256sum`, the tool a person checks
/// a backup with.
extension BackupFormatTests {
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
}
