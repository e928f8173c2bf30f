import Foundation

/// The age file format (age-encryption.org/v1, C2SP's age.md) with one passphrase (scrypt)
/// recipient, as `age -p` writes it and `age -d` reads it: a text header that wraps a random
/// 16-byte file key with the passphrase, a MAC over that header, then the payload in 64 KiB
/// ChaCha20-Poly1305 chunks (STREAM).
///
/// Every primitive is OpenSSL's (Age+Primitives.swift): scrypt, HKDF-SHA-256, HMAC-SHA-256,
/// ChaCha20-Poly1305 and the random bytes; this type only lays them out as the format says.
/// ``AgeWriter`` encrypts a stream, ``AgeReader`` decrypts one.
enum Age {
    /// What every age file starts with (the version line's beginning).
    static let magic = Array("age-encryption.org/".utf8)
    static let versionLine = "age-encryption.org/v1"
    /// A payload chunk's plaintext, at most; each is sealed with a 16-byte tag after it.
    static let chunkSize = 64 << 10
    static let tagSize = 16
    /// log2 of scrypt's work factor for a new file: `age -p`'s own (2^18: 256 MiB of memory, about
    /// a second with OpenSSL 3 on the 2-core build machine, as age's own Go).
    static let workFactor = 18
    /// The largest work factor a file is opened with (age's own limit): 2^22 needs 4 GiB.
    static let largestWorkFactor = 22

    /// Why an age file cannot be opened.
    enum Refusal: Error, Equatable {
        /// The passphrase does not unwrap the file key (or the stanza holding it was altered).
        case wrongPassphrase
        /// Encrypted to age keys (X25519, SSH, a plugin), not to a passphrase.
        case notPassphrase
        /// Encrypted to a passphrase, or to age keys none of which is the one given.
        case wrongKey
        /// A newer version of the format than v1.
        case newerVersion(String)
        /// In age's ASCII armor (`age -a`), which cravey does not read.
        case armored
        /// Made with a work factor above ``largestWorkFactor``.
        case workFactorTooLarge(Int)
        /// Not a sound age file: the header, the MAC or a chunk is damaged, altered or cut short.
        case damaged(String)
    }

    /// The key that wraps the file key: scrypt(N = 2^workFactor, r = 8, p = 1) of the passphrase,
    /// salted with "age-encryption.org/v1/scrypt" and the stanza's salt.
    static func wrapKey(passphrase: [UInt8], salt: [UInt8], workFactor: Int) throws -> [UInt8] {
        try scrypt(passphrase, salt: Array("age-encryption.org/v1/scrypt".utf8) + salt, workFactor: workFactor)
    }

    /// The key of the header's MAC: HKDF-SHA-256 of the file key, no salt, info "header".
    static func headerKey(fileKey: [UInt8]) throws -> [UInt8] {
        try hkdf(fileKey, info: Array("header".utf8))
    }

    /// The payload's key: HKDF-SHA-256 of the file key, salted with the payload's nonce, info "payload".
    static func payloadKey(fileKey: [UInt8], nonce: [UInt8]) throws -> [UInt8] {
        try hkdf(fileKey, salt: nonce, info: Array("payload".utf8))
    }

    /// The nonce of chunk `counter`: the counter as 11 big-endian bytes, then 1 for the last chunk, else 0.
    static func chunkNonce(_ counter: UInt64, last: Bool) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 { bytes[10 - index] = UInt8(truncatingIfNeeded: counter >> (8 * index)) }
        bytes[11] = last ? 1 : 0
        return bytes
    }

    /// The nonce the stanza's body is sealed with: 12 zero bytes.
    static let zeroNonce = [UInt8](repeating: 0, count: 12)

    /// Base64 without `=` padding, as age writes it.
    static func base64(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of unpadded base64; nil for anything that is not its canonical form.
    static func unbase64(_ text: Substring) -> [UInt8]? {
        guard !text.contains("=") else { return nil }
        let padded = String(text) + String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: padded), base64(data) == text else { return nil }
        return Array(data)
    }
}
