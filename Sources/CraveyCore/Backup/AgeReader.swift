import Foundation
import SystemPackage

/// Decrypts an age file (``Age``) made for a passphrase, as `age -d` does, a chunk at a time:
/// the header is checked (one scrypt stanza, its MAC), then ``read(into:)`` hands out the
/// plaintext of each chunk once its tag is verified. A chunk altered, dropped, reordered or cut
/// off, or a file that ends before its last chunk, throws ``Age/Refusal/damaged(_:)``: nothing
/// unverified is ever handed out. Memory: two chunks, whatever the file's length.
final class AgeReader {
    /// What the header says, before any passphrase is tried.
    struct Header {
        /// A passphrase's file: the scrypt stanza's salt and work factor, and the file key
        /// sealed with the passphrase's wrap key (32 bytes: 16 and the tag).
        var scrypt: (salt: [UInt8], workFactor: Int, wrapped: [UInt8])?
        /// Age keys' file: each X25519 stanza's ephemeral share and sealed file key.
        var x25519: [(share: [UInt8], wrapped: [UInt8])] = []
        /// The header up to and including `---`, which the MAC covers.
        var authenticated: [UInt8]
        var mac: [UInt8]

        /// The file key `passphrase` unwraps (scrypt: about a second); checks the header's MAC
        /// with it. Throws ``Age/Refusal``.
        func fileKey(passphrase: [UInt8]) throws -> [UInt8] {
            guard let (salt, workFactor, wrapped) = scrypt else { throw Age.Refusal.notPassphrase }
            let wrapKey = try Age.wrapKey(passphrase: passphrase, salt: salt, workFactor: workFactor)
            guard wrapped.count == 32, let key = Age.open(wrapped.prefix(16), tag: wrapped.suffix(16), key: wrapKey, nonce: Age.zeroNonce) else {
                throw Age.Refusal.wrongPassphrase
            }
            let fileKey = Array(key)
            try check(fileKey: fileKey)
            return fileKey
        }

        /// The file key one of its X25519 stanzas holds for `identity`; checks the header's MAC
        /// with it. Throws ``Age/Refusal`` (``Age/Refusal/wrongKey`` when none is for it).
        func fileKey(identity: AgeIdentity) throws -> [UInt8] {
            for stanza in x25519 {
                guard let fileKey = try Age.x25519FileKey(share: stanza.share, wrapped: stanza.wrapped, identity: identity) else { continue }
                try check(fileKey: fileKey)
                return fileKey
            }
            throw Age.Refusal.wrongKey
        }

        /// Checks the header's MAC with `fileKey`.
        func check(fileKey: [UInt8]) throws {
            guard try Age.isValid(mac: mac, of: authenticated, key: Age.headerKey(fileKey: fileKey)) else {
                throw Age.Refusal.damaged("its header was altered (its MAC does not match)")
            }
        }
    }

    private let descriptor: FileDescriptor
    private let key: [UInt8]
    /// The file key, to open the same file again without the passphrase's scrypt.
    let fileKey: [UInt8]
    /// Ciphertext read and not yet opened.
    private var sealed: [UInt8]
    private var endOfFile = false
    /// The plaintext of the chunk being handed out, and how much of it is handed out.
    private var plain = Data()
    private var handedOut = 0
    private var counter: UInt64 = 0
    private var lastOpened = false

    /// Opens the age file on `descriptor`, read from where it stands (its start): reads and checks
    /// the header, gets the file key from `unlock` (``Header/fileKey(passphrase:)``, or a key
    /// known from an earlier reading, checked against the MAC), and the payload's nonce.
    init(_ descriptor: FileDescriptor, unlock: (Header) throws -> [UInt8]) throws {
        self.descriptor = descriptor
        sealed = []
        sealed.reserveCapacity(2 * (Age.chunkSize + Age.tagSize))
        let header = try Self.header(of: &sealed, reading: { try Self.read(descriptor, into: &$0) })
        fileKey = try unlock(header)
        if fileKey.count != 16 { throw Age.Refusal.wrongPassphrase }
        try header.check(fileKey: fileKey)
        while sealed.count < 16 {
            guard try Self.read(descriptor, into: &sealed) else { throw Age.Refusal.damaged("it ends after its header") }
        }
        key = try Age.payloadKey(fileKey: fileKey, nonce: Array(sealed.prefix(16)))
        sealed.removeFirst(16)
    }

    /// Fills `buffer` with plaintext; returns how many bytes, 0 only after the last chunk.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while handedOut == plain.count {
            if lastOpened { return 0 }
            try openChunk()
        }
        let count = min(buffer.count, plain.count - handedOut)
        plain.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + handedOut, byteCount: count)
        }
        handedOut += count
        return count
    }

    /// Opens the next chunk: a whole one followed by more bytes is not the last; what is left at
    /// the end of the file is.
    private func openChunk() throws {
        let whole = Age.chunkSize + Age.tagSize
        while sealed.count <= whole, !endOfFile {
            if try !Self.read(descriptor, into: &sealed) { endOfFile = true }
        }
        let last = sealed.count <= whole
        let size = min(sealed.count, whole)
        guard size > Age.tagSize || (size == Age.tagSize && counter == 0) else {
            throw Age.Refusal.damaged(size == 0 ? "it is cut short (its last chunk is missing)" : "it is cut short in chunk \(counter)")
        }
        guard let opened = Age.open(sealed[..<(size - Age.tagSize)], tag: sealed[(size - Age.tagSize)..<size], key: key,
                                    nonce: Age.chunkNonce(counter, last: last)) else {
            throw Age.Refusal.damaged(last ? "its last chunk (\(counter)) was altered or is cut short" : "chunk \(counter) was altered")
        }
        sealed.removeFirst(size)
        (plain, handedOut) = (opened, 0)
        counter += 1
        lastOpened = last
    }

    /// Reads what `descriptor` has next (up to a chunk) onto `bytes`; false at the end of the file.
    private static func read(_ descriptor: FileDescriptor, into bytes: inout [UInt8]) throws -> Bool {
        let start = bytes.count
        let room = Age.chunkSize + Age.tagSize
        bytes.append(contentsOf: repeatElement(0, count: room))
        let count = try bytes.withUnsafeMutableBytes { try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
        bytes.removeLast(room - count)
        return count > 0
    }

    /// The longest header read: one scrypt stanza is about 150 bytes.
    private static let largestHeader = 16 << 10

    /// Reads the header from the start of `bytes` (reading more as needed) and removes it,
    /// leaving the payload's first bytes. Throws ``Age/Refusal``.
    private static func header(of bytes: inout [UInt8], reading more: (inout [UInt8]) throws -> Bool) throws -> Header {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        // Line by line up to the MAC line ("--- ").
        while true {
            guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                guard bytes.count < largestHeader, try more(&bytes) else {
                    throw Age.Refusal.damaged(bytes.count < largestHeader ? "it ends in its header" : "its header is too long")
                }
                continue
            }
            let line = bytes[start..<end]
            lines.append(line)
            start = end + 1
            if line.starts(with: Array("---".utf8)) { break }
        }
        let text = lines.map { String(decoding: $0, as: UTF8.self) }
        guard text[0] == Age.versionLine else {
            if text[0].hasPrefix("age-encryption.org/") { throw Age.Refusal.newerVersion(String(text[0].dropFirst(19))) }
            throw Age.Refusal.damaged("its first line is not age's")
        }
        // The stanzas: "-> " and arguments, then the body in lines of 64 columns, the last shorter.
        var stanzas: [(arguments: [Substring], body: String)] = []
        var index = 1
        while index < text.count - 1 {
            guard text[index].hasPrefix("-> ") else { throw Age.Refusal.damaged("its header has a line that is no stanza") }
            let arguments = text[index].dropFirst(3).split(separator: " ", omittingEmptySubsequences: false)
            var body = ""
            index += 1
            while true {
                guard index < text.count - 1 else { throw Age.Refusal.damaged("a stanza's body does not end") }
                let line = text[index]
                index += 1
                guard line.utf8.count <= 64 else { throw Age.Refusal.damaged("a stanza's line is too long") }
                body += line
                if line.utf8.count < 64 { break }
            }
            stanzas.append((arguments, body))
        }
        guard !stanzas.isEmpty else { throw Age.Refusal.damaged("its header has no stanza") }
        let macLine = text[text.count - 1]
        guard macLine.hasPrefix("--- "), let mac = Age.unbase64(macLine.dropFirst(4)), mac.count == 32 else {
            throw Age.Refusal.damaged("its header's MAC line is malformed")
        }
        let macStart = lines[lines.count - 1].startIndex
        var header = Header(authenticated: Array(bytes[..<(macStart + 3)]), mac: mac)
        if stanzas.contains(where: { $0.arguments.first == "scrypt" }) {
            guard stanzas.count == 1 else { throw Age.Refusal.damaged("its scrypt stanza is not alone") }
            header.scrypt = try scrypt(stanzas[0])
        } else {
            // Stanzas of other types (SSH keys, plugins) are passed over, as age does.
            header.x25519 = try stanzas.filter { $0.arguments.first == "X25519" }.map { stanza in
                guard stanza.arguments.count == 2, let share = Age.unbase64(stanza.arguments[1]), share.count == 32,
                      let wrapped = Age.unbase64(stanza.body[...]), wrapped.count == 32 else {
                    throw Age.Refusal.damaged("an X25519 stanza is malformed")
                }
                return (share, wrapped)
            }
        }
        bytes.removeFirst(start)
        return header
    }

    /// A scrypt stanza's salt, work factor and sealed file key. Throws ``Age/Refusal``.
    private static func scrypt(_ stanza: (arguments: [Substring], body: String)) throws -> (salt: [UInt8], workFactor: Int, wrapped: [UInt8]) {
        let arguments = stanza.arguments
        guard arguments.count == 3, let salt = Age.unbase64(arguments[1]), salt.count == 16 else {
            throw Age.Refusal.damaged("its scrypt stanza is malformed")
        }
        guard arguments[2].first != "0", arguments[2].allSatisfy(\.isASCII), arguments[2].allSatisfy(\.isNumber),
              let workFactor = Int(arguments[2]), workFactor > 0 else {
            throw Age.Refusal.damaged("its scrypt work factor is not a number")
        }
        guard workFactor <= Age.largestWorkFactor else { throw Age.Refusal.workFactorTooLarge(workFactor) }
        guard let wrapped = Age.unbase64(stanza.body[...]), wrapped.count == 32 else {
            throw Age.Refusal.damaged("its scrypt stanza's body is malformed")
        }
        return (salt, workFactor, wrapped)
    }
}
