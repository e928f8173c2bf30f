import Foundation

/// Encrypts a stream into an age file (``Age``) for a passphrase, as `age -p` does, or for an age
/// key's recipient, as `age -r` does: each 64 KiB
/// of what it is given is sealed as one chunk and handed to `sink` as soon as the next bytes show
/// it is not the last. Memory: one chunk, whatever the stream's length (and scrypt's 256 MiB).
///
/// The payload is sealed with a random file key, which only the header wraps with the
/// passphrase; so scrypt (about a second) runs on a thread of its own while the payload is
/// written, and the header, whose size is known from the start (``headerSize(workFactor:)``), is
/// written last, into the room left for it at the start of the file (``finish(header:)``).
final class AgeWriter {
    private let sink: (UnsafeRawBufferPointer) throws -> Void
    private let key: [UInt8]
    private let fileKey: [UInt8]
    /// How the header wraps the file key: with the passphrase (its key derived meanwhile), or for a recipient.
    private let wrapping: Wrapping
    /// The payload's nonce, written first after the header.
    private let nonce: [UInt8]
    /// The plaintext of the chunk being filled.
    private var chunk: [UInt8] = []
    private var counter: UInt64 = 0
    private var finished = false
    /// The bytes handed to `sink` so far (the file's size less the header's).
    private(set) var bytesWritten: Int64 = 0

    /// The size of the header for `workFactor`: every part of it has a fixed length.
    static func headerSize(workFactor: Int = Age.workFactor) -> Int {
        header(stanza: scryptStanza(salt: [UInt8](repeating: 0, count: 16), workFactor: workFactor, wrapped: [UInt8](repeating: 0, count: 32)),
               mac: [UInt8](repeating: 0, count: 32)).count
    }

    /// The size of the header for a recipient: every part of it has a fixed length too.
    static let recipientHeaderSize = header(stanza: x25519Stanza(share: [UInt8](repeating: 0, count: 32), wrapped: [UInt8](repeating: 0, count: 32)),
                                            mac: [UInt8](repeating: 0, count: 32)).count

    /// Starts deriving the passphrase's key (scrypt with 2^`workFactor`) on a thread of its own,
    /// and writes the payload's nonce to `sink`, which gets the payload from then on.
    convenience init(passphrase: [UInt8], workFactor: Int = Age.workFactor, to sink: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
        let salt = Age.random(16)
        try self.init(wrapping: .passphrase(WrapKeyDerivation(passphrase: passphrase, salt: salt, workFactor: workFactor), salt: salt, workFactor: workFactor),
                      fileKey: Age.random(16), to: sink)
    }

    /// Wraps the file key for `recipient` (``recipientHeaderSize``), and writes the payload's
    /// nonce to `sink`, which gets the payload from then on.
    convenience init(recipient: AgeRecipient, to sink: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
        let fileKey = Age.random(16)
        let (share, wrapped) = try Age.x25519Stanza(fileKey: fileKey, for: recipient)
        try self.init(wrapping: .recipient(share: share, wrapped: wrapped), fileKey: fileKey, to: sink)
    }

    private init(wrapping: Wrapping, fileKey: [UInt8], to sink: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
        self.sink = sink
        self.wrapping = wrapping
        self.fileKey = fileKey
        nonce = Age.random(16)
        key = try Age.payloadKey(fileKey: fileKey, nonce: nonce)
        chunk.reserveCapacity(Age.chunkSize)
        try emit(nonce)
    }

    /// Encrypts `bytes`, handing each chunk filled before them to the sink.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        precondition(!finished, "AgeWriter.write after finish")
        var rest = bytes
        while !rest.isEmpty {
            if chunk.count == Age.chunkSize { try seal(last: false) }
            let count = min(Age.chunkSize - chunk.count, rest.count)
            chunk.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<count]))
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
        }
    }

    /// Seals what is left as the last chunk (empty only when nothing was written at all), waits
    /// for the passphrase's key, and hands the header (``headerSize(workFactor:)`` bytes) to
    /// `header`, to be written at the start of the file.
    func finish(header write: (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition(!finished, "AgeWriter.finish twice")
        try seal(last: true)
        finished = true
        let stanza = switch wrapping {
        case .passphrase(let derivation, let salt, let workFactor):
            Self.scryptStanza(salt: salt, workFactor: workFactor, wrapped: try Age.seal(fileKey, key: try derivation.wait(), nonce: Age.zeroNonce))
        case .recipient(let share, let wrapped):
            Self.x25519Stanza(share: share, wrapped: wrapped)
        }
        var header = Self.header(stanza: stanza, mac: nil)
        let mac = try Age.hmac(header, key: Age.headerKey(fileKey: fileKey))
        header += Array(" \(Age.base64(mac))\n".utf8)
        try header.withUnsafeBytes(write)
    }

    /// The header: the version line, the stanza and the MAC line (up to `---` without a MAC).
    private static func header(stanza: String, mac: [UInt8]?) -> [UInt8] {
        let text = "\(Age.versionLine)\n\(stanza)\n---"
        return Array((text + (mac.map { " \(Age.base64($0))\n" } ?? "")).utf8)
    }

    /// A scrypt stanza (its body, 43 characters, on one line).
    private static func scryptStanza(salt: [UInt8], workFactor: Int, wrapped: [UInt8]) -> String {
        "-> scrypt \(Age.base64(salt)) \(workFactor)\n\(Age.base64(wrapped))"
    }

    /// An X25519 stanza (its body, 43 characters, on one line).
    private static func x25519Stanza(share: [UInt8], wrapped: [UInt8]) -> String {
        "-> X25519 \(Age.base64(share))\n\(Age.base64(wrapped))"
    }

    private enum Wrapping {
        case passphrase(WrapKeyDerivation, salt: [UInt8], workFactor: Int)
        case recipient(share: [UInt8], wrapped: [UInt8])
    }

    private func seal(last: Bool) throws {
        try emit(Age.seal(chunk, key: key, nonce: Age.chunkNonce(counter, last: last)))
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

/// The passphrase's wrap key (``Age/wrapKey(passphrase:salt:workFactor:)``), derived on a thread
/// of its own.
// @unchecked Sendable: `result` is written once, by the deriving thread, before it signals
// `done`; it is read only after waiting on `done`.
private final class WrapKeyDerivation: @unchecked Sendable {
    private var result: Result<[UInt8], any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(passphrase: [UInt8], salt: [UInt8], workFactor: Int) {
        let thread = Thread { [self] in
            result = Result { try Age.wrapKey(passphrase: passphrase, salt: salt, workFactor: workFactor) }
            done.signal()
        }
        thread.name = "cravey.scrypt"
        thread.start()
    }

    /// Waits for the key (at once if it is there).
    func wait() throws -> [UInt8] {
        done.wait()
        done.signal()
        return try result!.get()
    }
}
