import Foundation
import SystemPackage

/// Where a backup's tar bytes go: straight into the file, or, with a passphrase, through an
/// ``AgeWriter`` into an age file that `age -d` opens.
final class ArchiveOutput {
    private let file: MediaFile
    private let encryption: AgeWriter?
    private var plainBytes: Int64 = 0

    /// Starts writing into `file`; with a passphrase, after the room the age header takes, which
    /// ``finish()`` fills once scrypt (run meanwhile on a thread of its own) has derived the key.
    init(_ file: MediaFile, encryptingWith passphrase: [UInt8]?) throws {
        self.file = file
        if let passphrase {
            _ = try file.seek(to: Int64(AgeWriter.headerSize()), from: .start)
            encryption = try AgeWriter(passphrase: passphrase) { try file.writeAll($0) }
        } else {
            encryption = nil
        }
    }

    func write(_ bytes: ArraySlice<UInt8>) throws {
        try bytes.withUnsafeBytes { buffer in
            if let encryption { try encryption.write(buffer) } else { try file.writeAll(buffer) }
        }
        plainBytes += Int64(bytes.count)
    }

    /// Writes what is still held (an encrypted file's last chunk, then its header at its start);
    /// returns the file's size.
    func finish() throws -> Int64 {
        guard let encryption else { return plainBytes }
        try encryption.finish { header in
            _ = try file.seek(to: 0, from: .start)
            try file.writeAll(header)
        }
        return Int64(AgeWriter.headerSize()) + encryption.bytesWritten
    }
}

/// Where a restore reads a backup's tar bytes from: the file itself, or the plaintext of an age
/// file (one cravey or `age -p` encrypted), each chunk verified before its bytes are handed out.
final class ArchiveInput {
    private let descriptor: FileDescriptor
    private let decryption: AgeReader?

    /// The file key of an encrypted backup, to read it again without asking for the passphrase.
    var fileKey: [UInt8]? { decryption?.fileKey }

    /// Reads the backup on `descriptor` from its start. An encrypted one is opened with the
    /// passphrase `passphrase` gives (asked for only then), or with the file key of an earlier
    /// reading. Throws ``Age/Refusal`` (a wrong passphrase, a damaged header), or
    /// `.invalidInput` for an encrypted backup when there is no way to get a passphrase.
    init(_ descriptor: FileDescriptor, passphrase: (() throws -> [UInt8])?, fileKey: [UInt8]? = nil) throws {
        self.descriptor = descriptor
        try descriptor.seek(offset: 0, from: .start)
        guard try Self.starts(descriptor, with: Age.magic) else {
            if try Self.starts(descriptor, with: Array("-----BEGIN AGE ENCRYPTED FILE-----".utf8)) { throw Age.Refusal.armored }
            decryption = nil
            return
        }
        decryption = try AgeReader(descriptor) { header in
            if let fileKey { return fileKey }
            // Said before a passphrase is asked for.
            guard header.scrypt != nil else { throw Age.Refusal.notPassphrase }
            guard let passphrase else {
                throw CraveyError(.invalidInput, "The backup is encrypted (the age format): it needs its passphrase.", advice: .givePassphrase)
            }
            return try header.fileKey(passphrase: try passphrase())
        }
    }

    var isEncrypted: Bool { decryption != nil }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let decryption { return try decryption.read(into: buffer) }
        return try descriptor.read(into: buffer)
    }

    /// Whether the file on `descriptor` starts with `bytes`; leaves it at its start.
    private static func starts(_ descriptor: FileDescriptor, with bytes: [UInt8]) throws -> Bool {
        var start = [UInt8](repeating: 0, count: bytes.count)
        let count = try start.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: 0, into: $0) }
        return count == start.count && start == bytes
    }
}

extension CraveyError {
    /// What a refusal to open the encrypted backup at `url` says; `outcome` says what was restored.
    init(_ refusal: Age.Refusal, opening url: URL, _ outcome: String) {
        switch refusal {
        case .wrongPassphrase:
            self.init(.damagedArchive, "The passphrase does not open \(url.path) (or its header was altered). \(outcome)", underlying: refusal)
        case .notPassphrase:
            self.init(.damagedArchive, "\(url.path) is encrypted with age to a key, not to a passphrase. \(outcome)",
                      advice: .decryptWithAge(url.path), underlying: refusal)
        case .armored:
            self.init(.damagedArchive, "\(url.path) is an age file in ASCII armor (age -a), which cravey does not read. \(outcome)",
                      advice: .decryptWithAge(url.path), underlying: refusal)
        case .newerVersion(let version):
            self.init(.damagedArchive, "\(url.path) is in a newer age format (\(version)) than this cravey reads. \(outcome)",
                      advice: .decryptWithAge(url.path), underlying: refusal)
        case .workFactorTooLarge(let factor):
            self.init(.damagedArchive, "\(url.path) was encrypted with a scrypt work factor of 2^\(factor), above the 2^\(Age.largestWorkFactor) cravey (and age) accept. \(outcome)",
                      underlying: refusal)
        case .wrongKey:
            self.init(.damagedArchive, "The key does not open \(url.path) (or its header was altered). \(outcome)", underlying: refusal)
        case .damaged(let reason):
            self.init(.damagedArchive, "\(url.path) is not a whole encrypted backup: \(reason). \(outcome)", underlying: refusal)
        }
    }
}
