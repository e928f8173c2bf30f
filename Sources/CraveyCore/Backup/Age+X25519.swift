import COpenSSL
import Foundation

/// An age key (age-encryption.org/v1's X25519 recipient type): `AGE-SECRET-KEY-1…` as
/// `age-keygen` writes it, which `age -d -i FILE` opens a file with. A synced folder's files are
/// encrypted to its key's recipient (docs/sync.md), so that the key, and only it, opens each.
package struct AgeIdentity: Sendable, Equatable, CustomStringConvertible {
    /// The 32 secret bytes.
    let secret: [UInt8]
    /// Its recipient: what a file for it is encrypted to. Worked out once: every file opened
    /// with the key needs it (its wrap key is derived with it), and it is an X25519 of its own.
    package let recipient: AgeRecipient

    /// A new key, of OpenSSL's random bytes.
    package init() {
        self.init(secret: Age.random(32))
    }

    /// The key `AGE-SECRET-KEY-1…` writes (in either case, as age reads it); nil for anything else.
    package init?(_ text: String) {
        guard let (prefix, bytes) = Bech32.decode(text.lowercased()), prefix == "age-secret-key-", bytes.count == 32 else { return nil }
        self.init(secret: bytes)
    }

    private init(secret: [UInt8]) {
        self.secret = secret
        recipient = AgeRecipient(key: (try? Age.x25519Public(secret)) ?? [])
    }

    /// `AGE-SECRET-KEY-1…`, as `age-keygen` writes it.
    package var description: String { Bech32.encode("age-secret-key-", secret).uppercased() }
}

/// An age recipient: `age1…`, the public half of an ``AgeIdentity``.
package struct AgeRecipient: Sendable, Equatable, CustomStringConvertible {
    /// The 32 bytes of the X25519 public key.
    let key: [UInt8]

    init(key: [UInt8]) {
        self.key = key
    }

    /// The recipient `age1…` writes; nil for anything else.
    package init?(_ text: String) {
        guard let (prefix, bytes) = Bech32.decode(text), prefix == "age", bytes.count == 32 else { return nil }
        key = bytes
    }

    package var description: String { Bech32.encode("age", key) }
}

extension Age {
    /// The label the X25519 wrap key is derived with.
    static let x25519Label = Array("age-encryption.org/v1/X25519".utf8)

    /// X25519's public key of `secret` (32 bytes each).
    static func x25519Public(_ secret: [UInt8]) throws -> [UInt8] {
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, secret, secret.count) else { throw failure("X25519") }
        defer { EVP_PKEY_free(key) }
        var bytes = [UInt8](repeating: 0, count: 32)
        var length = bytes.count
        guard EVP_PKEY_get_raw_public_key(key, &bytes, &length) == 1, length == 32 else { throw failure("X25519") }
        return bytes
    }

    /// X25519 of `secret` and `peer`: the shared secret (32 bytes); nil when it is all zeros (a
    /// peer key of low order, which age refuses).
    static func x25519(_ secret: [UInt8], _ peer: [UInt8]) throws -> [UInt8]? {
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, secret, secret.count) else { throw failure("X25519") }
        defer { EVP_PKEY_free(key) }
        guard let other = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, peer, peer.count) else { return nil }
        defer { EVP_PKEY_free(other) }
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw failure("X25519") }
        defer { EVP_PKEY_CTX_free(context) }
        var shared = [UInt8](repeating: 0, count: 32)
        var length = shared.count
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, other) == 1,
              EVP_PKEY_derive(context, &shared, &length) == 1, length == 32 else { return nil }
        return shared.allSatisfy { $0 == 0 } ? nil : shared
    }

    /// The X25519 stanza that wraps `fileKey` for `recipient`: its argument (the ephemeral
    /// share, base64) and its body (the sealed file key).
    static func x25519Stanza(fileKey: [UInt8], for recipient: AgeRecipient) throws -> (share: [UInt8], wrapped: [UInt8]) {
        let ephemeral = random(32)
        let share = try x25519Public(ephemeral)
        guard let shared = try x25519(ephemeral, recipient.key) else { throw failure("X25519 (a recipient of low order)") }
        let wrapKey = try hkdf(shared, salt: share + recipient.key, info: x25519Label)
        return (share, try seal(fileKey, key: wrapKey, nonce: zeroNonce))
    }

    /// The file key an X25519 stanza (`share`, `wrapped`) holds for `identity`; nil when it is
    /// not for it.
    static func x25519FileKey(share: [UInt8], wrapped: [UInt8], identity: AgeIdentity) throws -> [UInt8]? {
        guard share.count == 32, wrapped.count == 32, let shared = try x25519(identity.secret, share) else { return nil }
        let wrapKey = try hkdf(shared, salt: share + identity.recipient.key, info: x25519Label)
        return open(wrapped.prefix(16), tag: wrapped.suffix(16), key: wrapKey, nonce: zeroNonce).map(Array.init)
    }
}

/// Bech32 (BIP 173), as age writes its keys: a prefix, "1", the bytes in 5-bit letters and a
/// 6-letter checksum; no length limit (age's keys are longer than BIP 173's 90 characters).
enum Bech32 {
    static let letters = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

    static func encode(_ prefix: String, _ bytes: [UInt8]) -> String {
        let data = regroup(bytes, from: 8, to: 5, padding: true)!
        let sum = checksum(prefix, data)
        return prefix + "1" + String(decoding: (data + sum).map { letters[Int($0)] }, as: UTF8.self)
    }

    /// The prefix and bytes of `text` (lower case); nil for a wrong checksum or letter.
    static func decode(_ text: String) -> (String, [UInt8])? {
        guard let separator = text.lastIndex(of: "1"), text.allSatisfy({ $0.isASCII && !$0.isUppercase }) else { return nil }
        let prefix = String(text[..<separator])
        var data: [UInt8] = []
        for letter in text.utf8[text.utf8.index(after: separator)...] {
            guard let value = letters.firstIndex(of: letter) else { return nil }
            data.append(UInt8(value))
        }
        guard !prefix.isEmpty, data.count >= 6, polymod(expand(prefix) + data) == 1 else { return nil }
        guard let bytes = regroup(Array(data.dropLast(6)), from: 5, to: 8, padding: false) else { return nil }
        return (prefix, bytes)
    }

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        var check: UInt32 = 1
        for value in values {
            let top = check >> 25
            check = (check & 0x1ff_ffff) << 5 ^ UInt32(value)
            for bit in 0..<5 where (top >> bit) & 1 == 1 { check ^= generator[bit] }
        }
        return check
    }

    private static func expand(_ prefix: String) -> [UInt8] {
        prefix.utf8.map { $0 >> 5 } + [0] + prefix.utf8.map { $0 & 31 }
    }

    private static func checksum(_ prefix: String, _ data: [UInt8]) -> [UInt8] {
        let value = polymod(expand(prefix) + data + [0, 0, 0, 0, 0, 0]) ^ 1
        return (0..<6).map { UInt8((value >> (5 * (5 - $0))) & 31) }
    }

    /// `values` of `from` bits regrouped in `to` bits; nil where padding is not allowed and left over.
    private static func regroup(_ values: [UInt8], from: Int, to: Int, padding: Bool) -> [UInt8]? {
        var accumulator = 0, bits = 0
        var result: [UInt8] = []
        let mask = (1 << to) - 1, kept = (1 << (from + to - 1)) - 1
        for value in values {
            accumulator = ((accumulator << from) | Int(value)) & kept
            bits += from
            while bits >= to {
                bits -= to
                result.append(UInt8((accumulator >> bits) & mask))
            }
        }
        if padding {
            if bits > 0 { result.append(UInt8((accumulator << (to - bits)) & mask)) }
        } else if bits >= from || (accumulator << (to - bits)) & mask != 0 {
            return nil
        }
        return result
    }
}
