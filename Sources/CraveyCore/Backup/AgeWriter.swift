import Crypto
import Foundation

/// Encrypts a stream into an age file (``Age``) for a passphrase, as `age -p` does: the header
/// first, then each 64 KiB of what it is given as one sealed chunk, handed to `sink` as soon as
/// the next bytes show it is not the last. Memory: one chunk, whatever the stream's length.
final class AgeWriter {
    private let sink: (UnsafeRawBufferPointer) throws -> Void
    private let key: SymmetricKey
    /// The plaintext of the chunk being filled.
    private var chunk: [UInt8] = []
    private var counter: UInt64 = 0
    private var finished = false
    /// The bytes handed to `sink` so far: the file's size once ``finish()`` returns.
    private(set) var bytesWritten: Int64 = 0

    /// Writes the header for `passphrase` (scrypt with 2^`workFactor`: about a second, and 256 MiB
    /// for the default) and the payload's nonce to `sink`.
    init(passphrase: [UInt8], workFactor: Int = Age.workFactor, to sink: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
        self.sink = sink
        let fileKey = Age.random(16)
        let salt = Age.random(16)
        let wrapped = try ChaChaPoly.seal(fileKey, using: try Age.wrapKey(passphrase: passphrase, salt: salt, workFactor: workFactor),
                                          nonce: Age.zeroNonce)
        var header = "\(Age.versionLine)\n-> scrypt \(Age.base64(salt)) \(workFactor)\n\(Age.base64(wrapped.ciphertext + wrapped.tag))\n---"
        let mac = HMAC<SHA256>.authenticationCode(for: Array(header.utf8), using: Age.headerKey(fileKey: fileKey))
        header += " \(Age.base64(mac))\n"
        let nonce = Age.random(16)
        key = Age.payloadKey(fileKey: fileKey, nonce: nonce)
        chunk.reserveCapacity(Age.chunkSize)
        try emit(Array(header.utf8) + nonce)
    }

    /// Encrypts `bytes`, handing each chunk filled before them to the sink.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        precondition(!finished, "AgeWriter.write after finish")
        var rest = bytes[...]
        while !rest.isEmpty {
            if chunk.count == Age.chunkSize { try seal(last: false) }
            let count = min(Age.chunkSize - chunk.count, rest.count)
            chunk.append(contentsOf: rest.prefix(count))
            rest = rest.dropFirst(count)
        }
    }

    /// Seals what is left as the last chunk (empty only when nothing was written at all).
    func finish() throws {
        guard !finished else { return }
        try seal(last: true)
        finished = true
    }

    private func seal(last: Bool) throws {
        let sealed = try ChaChaPoly.seal(chunk, using: key, nonce: Age.chunkNonce(counter, last: last))
        try emit(sealed.ciphertext)
        try emit(sealed.tag)
        counter += 1
        chunk.removeAll(keepingCapacity: true)
    }

    private func emit(_ bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { buffer in
            try sink(buffer)
            bytesWritten += Int64(buffer.count)
        }
    }
}
