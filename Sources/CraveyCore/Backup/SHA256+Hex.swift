import Crypto
import Foundation

/// swift-crypto's SHA-256 (BoringSSL's) as a backup uses it: fed in pieces, its digest in the 64
/// lowercase hex digits `sha256sum` prints.
extension SHA256 {
    /// Adds bytes.
    mutating func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { update(bufferPointer: $0) }
    }

    /// The digest of what was added, as 64 lowercase hex digits.
    func hexDigest() -> String {
        finalize().map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The digest of `data`, as 64 hex digits.
    static func of(_ data: Data) -> String {
        var hash = SHA256()
        hash.update(data)
        return hash.hexDigest()
    }
}
