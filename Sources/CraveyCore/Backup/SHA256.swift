import COpenSSL
import Foundation

/// SHA-256 (OpenSSL's libcrypto) as a backup uses it: fed in pieces, its digest in the 64
/// lowercase hex digits `sha256sum` prints.
final class SHA256 {
    private let context: OpaquePointer

    init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("OpenSSL could not start a SHA-256 (out of memory)")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes.
    func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { buffer in
            guard let start = buffer.baseAddress else { return }
            precondition(EVP_DigestUpdate(context, start, buffer.count) == 1, "OpenSSL's SHA-256 took no bytes")
        }
    }

    /// The digest of what was added, as 64 lowercase hex digits; once: nothing is added after it.
    func hexDigest() -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &digest, &length) == 1 && length == 32, "OpenSSL's SHA-256 gave no digest")
        return digest.prefix(32).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The digest of `data`, as 64 hex digits.
    static func of(_ data: Data) -> String {
        let hash = SHA256()
        hash.update(data)
        return hash.hexDigest()
    }
}
