import COpenSSL
import Foundation

/// The primitives the age format is made of, each OpenSSL's (libcrypto 3): the random bytes,
/// scrypt, HKDF-SHA-256, HMAC-SHA-256 and ChaCha20-Poly1305. Keys are 32 bytes, nonces 12.
extension Age {
    /// `count` bytes from OpenSSL's random generator (seeded by the kernel's).
    static func random(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&bytes, Int32(count)) == 1, "OpenSSL's random generator gave no bytes")
        return bytes
    }

    /// scrypt(N = 2^`workFactor`, r = 8, p = 1) of `passphrase` with `salt`: 32 bytes.
    static func scrypt(_ passphrase: [UInt8], salt: [UInt8], workFactor: Int) throws -> [UInt8] {
        let rounds = UInt64(1) << UInt64(workFactor), blockSize: UInt64 = 8
        // What scrypt needs (128 r (N + 2) bytes, and 128 r p), and a MiB to spare: OpenSSL
        // refuses to take more than it is told it may.
        let memory = 128 * blockSize * (rounds + 3) + (1 << 20)
        var key = [UInt8](repeating: 0, count: 32)
        let derived = passphrase.withUnsafeBytes { pass in
            EVP_PBE_scrypt(pass.baseAddress?.assumingMemoryBound(to: CChar.self), pass.count, salt, salt.count,
                           rounds, blockSize, 1, memory, &key, key.count)
        }
        guard derived == 1 else { throw failure("scrypt (2^\(workFactor))") }
        return key
    }

    /// HKDF-SHA-256 of `key` with `salt` (none when empty) and `info`: 32 bytes.
    static func hkdf(_ key: [UInt8], salt: [UInt8] = [], info: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else { throw failure("HKDF") }
        defer { EVP_PKEY_CTX_free(context) }
        var derived = [UInt8](repeating: 0, count: 32)
        var length = derived.count
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1,
              salt.isEmpty || EVP_PKEY_CTX_set1_hkdf_salt(context, salt, Int32(salt.count)) == 1,
              EVP_PKEY_CTX_set1_hkdf_key(context, key, Int32(key.count)) == 1,
              EVP_PKEY_CTX_add1_hkdf_info(context, info, Int32(info.count)) == 1,
              EVP_PKEY_derive(context, &derived, &length) == 1, length == 32 else { throw failure("HKDF") }
        return derived
    }

    /// HMAC-SHA-256 of `message` with `key`: 32 bytes.
    static func hmac(_ message: [UInt8], key: [UInt8]) throws -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &mac, &length) != nil, length == 32 else {
            throw failure("HMAC")
        }
        return mac
    }

    /// Whether `mac` is the HMAC-SHA-256 of `message` with `key`, compared in constant time.
    static func isValid(mac: [UInt8], of message: [UInt8], key: [UInt8]) throws -> Bool {
        let expected = try hmac(message, key: key)
        return mac.count == expected.count && CRYPTO_memcmp(mac, expected, expected.count) == 0
    }

    /// `plaintext` sealed with ChaCha20-Poly1305: its ciphertext, then the 16-byte tag.
    static func seal(_ plaintext: some ContiguousBytes, key: [UInt8], nonce: [UInt8]) throws -> [UInt8] {
        precondition(key.count == 32 && nonce.count == 12, "ChaCha20-Poly1305 takes a 32-byte key and a 12-byte nonce")
        guard let context = EVP_CIPHER_CTX_new() else { throw failure("ChaCha20-Poly1305") }
        defer { EVP_CIPHER_CTX_free(context) }
        return try plaintext.withUnsafeBytes { input in
            precondition(input.count <= Int(Int32.max - 16))
            var sealed = [UInt8](repeating: 0, count: input.count + tagSize)
            let done = sealed.withUnsafeMutableBufferPointer { output -> Bool in
                let out = output.baseAddress!
                var last: Int32 = 0
                return crypt(context, sealing: true, key: key, nonce: nonce, input, into: out)
                    && EVP_EncryptFinal_ex(context, out + input.count, &last) == 1 && last == 0
                    && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagSize), out + input.count) == 1
            }
            guard done else { throw failure("ChaCha20-Poly1305") }
            return sealed
        }
    }

    /// The plaintext of `ciphertext` sealed with ChaCha20-Poly1305 and `tag`; nil when the tag
    /// does not match (a wrong key, or altered bytes).
    static func open(_ ciphertext: some ContiguousBytes, tag: some ContiguousBytes, key: [UInt8], nonce: [UInt8]) -> Data? {
        var tag = tag.withUnsafeBytes { Array($0) }
        guard key.count == 32, nonce.count == 12, tag.count == tagSize, let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        return ciphertext.withUnsafeBytes { input -> Data? in
            guard input.count <= Int(Int32.max) else { return nil }
            // (one byte more than the plaintext: the last call's output points past it)
            // (opened in place in the Data returned, not copied into it afterwards)
            var plain = Data(count: input.count + 1)
            let opened = plain.withUnsafeMutableBytes { output -> Bool in
                let out = output.bindMemory(to: UInt8.self).baseAddress!
                var last: Int32 = 0
                return crypt(context, sealing: false, key: key, nonce: nonce, input, into: out)
                    && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagSize), &tag) == 1
                    && EVP_DecryptFinal_ex(context, out + input.count, &last) == 1 && last == 0
            }
            guard opened else { return nil }
            plain.count = input.count
            return plain
        }
    }

    /// Starts `context` sealing or opening with ChaCha20-Poly1305, and runs `input` through it
    /// into `output` (as many bytes); false when OpenSSL fails.
    private static func crypt(_ context: OpaquePointer, sealing: Bool, key: [UInt8], nonce: [UInt8],
                              _ input: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>) -> Bool {
        guard EVP_CipherInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce, sealing ? 1 : 0) == 1 else { return false }
        guard let start = input.baseAddress, input.count > 0 else { return true }
        var written: Int32 = 0
        return EVP_CipherUpdate(context, output, &written, start.assumingMemoryBound(to: UInt8.self), Int32(input.count)) == 1
            && Int(written) == input.count
    }

    static func failure(_ what: String) -> CraveyError {
        CraveyError(.other, "OpenSSL's \(what) failed (out of memory?). Try again.")
    }
}
