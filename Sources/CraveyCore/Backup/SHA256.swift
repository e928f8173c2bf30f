import COpenSSL
import Foundation
import SystemPackage

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

    /// The digest of what was added, its 32 bytes; once: nothing is added after it.
    func digest() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &digest, &length) == 1 && length == 32, "OpenSSL's SHA-256 gave no digest")
        return Array(digest.prefix(32))
    }

    /// The digest of what was added, as 64 lowercase hex digits; once: nothing is added after it.
    func hexDigest() -> String {
        digest().map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The size of what `descriptor` reads from where it is to its end, and its SHA-256, read a
    /// MiB at a time.
    static func of(_ descriptor: FileDescriptor) throws -> (size: Int64, hash: SHA256) {
        let hash = SHA256()
        var size: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try descriptor.read(into: $0) }
            if count == 0 { return (size, hash) }
            hash.update(buffer[..<count])
            size += Int64(count)
        }
    }

    /// The digest of `data`, as 64 hex digits.
    static func of(_ data: Data) -> String {
        let hash = SHA256()
        hash.update(data)
        return hash.hexDigest()
    }
}
