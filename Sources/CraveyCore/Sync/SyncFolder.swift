import Foundation
import SystemPackage

/// The sync folder (docs/sync.md): the folder Syncthing (or any file syncer) carries between
/// machines, which cravey writes its changes into and reads the others' from. Every file cravey
/// puts there is an age file (for the passphrase: the folder's key; for the folder's key: each
/// change file), named by ids and numbers only, written once, in one step.
package struct SyncFolder: Sendable {
    /// The folder.
    package let url: URL
    /// The folder's key: every change file is encrypted to its recipient.
    package let key: AgeIdentity
    /// The folder's own id (a second folder set up elsewhere has another).
    package let id: UUID

    /// The key file's name: the folder's key and id, encrypted to the passphrase.
    package static let keyFileName = "cravey-folder.age"
    /// What a folder may hold and still be empty: Syncthing's own marker and settings.
    static let syncersOwn: Set<String> = [".stfolder", ".stignore", ".stversions"]
    /// What `.stignore` has Syncthing leave alone (and delete with the folder that holds it):
    /// the temporary names cravey's files are written under where a file system has no unnamed
    /// files (``FileStorageManager/writeAtomically(to:doing:replacing:faults:fill:)``).
    static let ignored = "(?d).*.tmp"
    /// The largest change file read (a crafted 1 GB one is refused before any of it is read).
    static let largestChangeFile = 64 << 20

    /// What the key file holds.
    private struct KeyFile: Codable {
        var format = 1
        var folder: UUID
        var key: String
    }

    /// The sync folder at `url` as a library that joined it keeps it: its key and its id.
    package init(url: URL, key: AgeIdentity, id: UUID) {
        (self.url, self.key, self.id) = (url, key, id)
    }

    /// Sets up the empty folder at `url` (nothing in it but Syncthing's own files) as a new sync
    /// folder: a new key, kept in it encrypted to `passphrase`. Refuses a folder that holds
    /// anything else (`.notSyncFolder`), and a sync folder already (`.invalidInput`: join it),
    /// one set up meanwhile by another machine included: the key file is written first, once,
    /// so of two machines setting up one folder at once, one key is the folder's.
    package static func create(at url: URL, passphrase: [UInt8], workFactor: Int = Age.workFactor) throws -> SyncFolder {
        let already = CraveyError(.invalidInput, "\(url.path) is a sync folder already (another machine may have just set it up): join it with its passphrase.")
        if FileManager.default.fileExists(atPath: url.appendingPathComponent(keyFileName).path) { throw already }
        try refuseUnusable(url)
        let folder = SyncFolder(url: url, key: AgeIdentity(), id: UUID())
        let plain = try JSONEncoder().encode(KeyFile(folder: folder.id, key: folder.key.description))
        let keyFile = url.appendingPathComponent(keyFileName)
        do {
            try FileStorageManager.writeAtomically(to: keyFile, doing: "set up", replacing: false) { file in
                try Self.encrypt(Array(plain), with: AgeWriter(passphrase: passphrase, workFactor: workFactor, to: file.writeAll), headerSize: AgeWriter.headerSize(workFactor: workFactor), into: file)
            }
        } catch where FileManager.default.fileExists(atPath: keyFile.path) {
            throw already
        }
        try makeFolders(in: url)
        return folder
    }

    /// Refuses (`.notSyncFolder`) what cannot be set up as a new sync folder at `url`: what is
    /// not a folder, or a folder that holds anything but Syncthing's own files. Nothing there,
    /// or an empty folder, is fine (the folder is made when it is not there).
    package static func refuseUnusable(_ url: URL) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return }
        guard isFolder.boolValue else {
            throw CraveyError(.notSyncFolder, "\(url.path) is not a folder: a sync folder is a folder of its own.")
        }
        guard try FileManager.default.contentsOfDirectory(atPath: url.path).allSatisfy(syncersOwn.contains) else {
            throw CraveyError(.notSyncFolder, "\(url.path) is neither a sync folder nor empty: a sync folder starts empty (or as Syncthing made it). Choose an empty folder, or the folder another machine set up. Nothing was changed.")
        }
    }

    /// Makes what a sync folder holds beside its key when it is not there yet (a setup another
    /// machine is still making, or one cut short): `devices/`, `inbox/` (0700) and the
    /// `.stignore` that has Syncthing leave cravey's files being written alone (they have no
    /// name until whole or, on a file system without unnamed files, a FAT USB stick, a hidden
    /// `.tmp` one). A `.stignore` of the person's own is left as it is.
    private static func makeFolders(in url: URL) throws {
        for name in ["devices", "inbox"] {
            try makeFolder(url.appendingPathComponent(name))
        }
        let ignore = url.appendingPathComponent(".stignore")
        do {
            try FileStorageManager.writeAtomically(to: ignore, doing: "set up", replacing: false) { file in
                try Array("// cravey's sync folder: every file is written whole, in one step.\n\(Self.ignored)\n".utf8).withUnsafeBytes(file.writeAll)
            }
        } catch where FileManager.default.fileExists(atPath: ignore.path) {}
    }

    /// Joins the sync folder at `url` with `passphrase`. Refuses a folder that is no sync folder
    /// (`.notSyncFolder`) and a passphrase that does not open it (`.wrongPassphrase`).
    package static func join(at url: URL, passphrase: [UInt8]) throws -> SyncFolder {
        let keyFile = url.appendingPathComponent(keyFileName)
        guard FileManager.default.fileExists(atPath: keyFile.path) else {
            throw CraveyError(.notSyncFolder, "\(url.path) is not a sync folder (it has no \(keyFileName)): set it up with `cravey sync`, from an empty folder.")
        }
        let plain: Data
        do {
            plain = try decrypt(keyFile, largest: 64 << 10) { try $0.fileKey(passphrase: passphrase) }
        } catch Age.Refusal.wrongPassphrase {
            throw CraveyError(.wrongPassphrase, "The passphrase does not open the sync folder \(url.path): it is the passphrase given when the folder was set up. Nothing was changed.")
        }
        guard let held = try? JSONDecoder().decode(KeyFile.self, from: plain), held.format == 1, let key = AgeIdentity(held.key) else {
            throw CraveyError(.notSyncFolder, "\(keyFile.path) is not a sync folder's key file that this cravey reads.")
        }
        try makeFolders(in: url)
        return SyncFolder(url: url, key: key, id: held.folder)
    }

    /// The folder of `device`'s change files.
    func changes(of device: SyncDevice) -> URL {
        url.appendingPathComponent("devices/\(device.hex)/changes")
    }

    /// The name of change file `number`: 20 digits, so that names sort as numbers.
    static func name(_ number: UInt64) -> String {
        let digits = String(number)
        return String(repeating: "0", count: 20 - digits.count) + digits + ".age"
    }

    /// Writes `changes` as `device`'s change file `number`, once: a file of that number already
    /// there is left as it is (a crash between writing it and noting it sent writes it again).
    package func write(_ changes: [SyncChange], as number: UInt64, of device: SyncDevice) throws {
        let folder = self.changes(of: device)
        try make(folder)
        let target = folder.appendingPathComponent(Self.name(number))
        guard !FileManager.default.fileExists(atPath: target.path) else { return }
        let plain = try SyncChange.encoder.encode(changes)
        do {
            try FileStorageManager.writeAtomically(to: target, doing: "send", replacing: false) { file in
                try Self.encrypt(Array(plain), with: AgeWriter(recipient: key.recipient, to: file.writeAll), headerSize: AgeWriter.recipientHeaderSize, into: file)
            }
        } catch where FileManager.default.fileExists(atPath: target.path) {
            return  // another process sending the same outbox wrote it first
        }
    }

    /// Makes `folder`, a device's `changes/` or `media/`, and its device's folder (0700), when
    /// they are not there. Never the sync folder or its `devices/`: a sync folder that is not
    /// there (a USB stick unplugged, its mount point left) is refused (`.notFound`), not made again.
    private func make(_ folder: URL) throws {
        let devices = url.appendingPathComponent("devices")
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: devices.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw CraveyError(.notFound, "The sync folder \(url.path) is not there (or has no devices/): is its disk mounted? Nothing was sent; the next sync sends it.")
        }
        for level in [folder.deletingLastPathComponent(), folder] {
            try Self.makeFolder(level)
        }
    }

    /// Makes `folder` (0700, its parent there already), unless it is there.
    private static func makeFolder(_ folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch where FileManager.default.fileExists(atPath: folder.path) {}
    }

    /// What `devices/DEVICE/device.age` holds: the device's name, for a person to tell the
    /// machines apart (`cravey sync --status`).
    private struct DeviceFile: Codable {
        var format = 1
        var name: String
    }

    /// Writes `device`'s name (`devices/DEVICE/device.age`, encrypted as every file here), in
    /// place of the one there: only that device writes it.
    package func write(name: String, of device: SyncDevice) throws {
        let folder = url.appendingPathComponent("devices/\(device.hex)")
        try make(folder.appendingPathComponent("changes"))
        let plain = try JSONEncoder().encode(DeviceFile(name: name))
        try FileStorageManager.writeAtomically(to: folder.appendingPathComponent("device.age"), doing: "send") { file in
            try Self.encrypt(Array(plain), with: AgeWriter(recipient: key.recipient, to: file.writeAll), headerSize: AgeWriter.recipientHeaderSize, into: file)
        }
    }

    /// Whether `device` has written its name (checked before every send, so not decrypted).
    package func hasName(_ device: SyncDevice) -> Bool {
        FileManager.default.fileExists(atPath: url.appendingPathComponent("devices/\(device.hex)/device.age").path)
    }

    /// `device`'s name; nil when it has written none (yet), or none that can be read.
    package func name(of device: SyncDevice) -> String? {
        let file = url.appendingPathComponent("devices/\(device.hex)/device.age")
        guard let plain = try? Self.decrypt(file, largest: 64 << 10, unlock: { try $0.fileKey(identity: key) }) else { return nil }
        return (try? JSONDecoder().decode(DeviceFile.self, from: plain))?.name
    }

    /// Where `blob` is: `devices/DEVICE/media/BLOB.age`.
    package func file(of blob: SyncChange.Blob) -> URL {
        file(of: blob.device, blob.id)
    }

    /// The file of `device`'s blob `id`.
    func file(of device: SyncDevice, _ id: UUID) -> URL {
        url.appendingPathComponent("devices/\(device.hex)/media/\(id.uuidString.lowercased()).age")
    }

    /// Writes `blob` from what `descriptor` reads (from where it is to its end), encrypted to the
    /// folder's key, once: a blob already there is left as it is. Returns false, and writes
    /// nothing, when the bytes are not the blob's (its size and SHA-256): the clip's file changed
    /// since the change was made, and a later change of the clip tells its new media.
    @discardableResult
    package func write(_ blob: SyncChange.Blob, from descriptor: FileDescriptor) throws -> Bool {
        let target = file(of: blob)
        guard !FileManager.default.fileExists(atPath: target.path) else { return true }
        try make(target.deletingLastPathComponent())
        struct NotTheBlob: Error {}
        do {
            try FileStorageManager.writeAtomically(to: target, doing: "send", replacing: false) { file in
                _ = try file.seek(to: Int64(AgeWriter.recipientHeaderSize), from: .start)
                let writer = try AgeWriter(recipient: key.recipient, to: file.writeAll)
                let hash = SHA256()
                var size: Int64 = 0
                var buffer = [UInt8](repeating: 0, count: Age.chunkSize * 16)
                while true {
                    let count = try buffer.withUnsafeMutableBytes { try descriptor.read(into: $0) }
                    if count == 0 { break }
                    hash.update(buffer[..<count])
                    try buffer[..<count].withUnsafeBytes(writer.write)
                    size += Int64(count)
                }
                guard size == blob.size, hash.hexDigest() == blob.sha256 else { throw NotTheBlob() }
                try writer.finish { header in
                    _ = try file.seek(to: 0, from: .start)
                    try file.writeAll(header)
                }
            }
        } catch is NotTheBlob {
            return false
        } catch where FileManager.default.fileExists(atPath: target.path) {
            return true  // another process sending the same outbox wrote it first
        }
        return true
    }

    /// The plaintext of `blob`, checked against its size and SHA-256: nil when it is not there
    /// (yet), or not whole. Throws why it cannot be believed (``Age/Refusal``).
    package func read(_ blob: SyncChange.Blob) throws -> Data? {
        let file = file(of: blob)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let plain = try Self.decrypt(file, largest: Int(blob.size) + (1 << 20) + Int(blob.size >> 10)) { try $0.fileKey(identity: key) }
        guard plain.count == blob.size, SHA256.of(plain) == blob.sha256 else { return nil }
        return plain
    }

    /// Writes the plaintext of `blob` into `file` (a clip's media being written into the
    /// library), as it is decrypted, never all in memory. False when it is not there (yet) or
    /// is not the blob its change names (its size and SHA-256): a file still arriving, or
    /// another's. Throws why it cannot be believed (``Age/Refusal``) or written.
    package func copy(_ blob: SyncChange.Blob, into file: MediaFile) throws -> Bool {
        let source = self.file(of: blob)
        guard let descriptor = try? FileDescriptor.open(FilePath(source.path), .readOnly, options: [.noFollow, .closeOnExec]) else { return false }
        defer { try? descriptor.close() }
        let reader = try AgeReader(descriptor) { try $0.fileKey(identity: key) }
        let hash = SHA256()
        var size: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: Age.chunkSize * 16)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
            if count == 0 { break }
            size += Int64(count)
            guard size <= blob.size else { return false }
            hash.update(buffer[..<count])
            try buffer[..<count].withUnsafeBytes(file.writeAll)
        }
        return size == blob.size && hash.hexDigest() == blob.sha256
    }

    /// `device`'s change file `number`: nil when it is not there (yet). Throws why it cannot be
    /// believed (``Age/Refusal``: not whole yet, damaged, not for this folder's key; a
    /// `CraveyError` for what it holds): one that says it is another device's or another number's,
    /// holds a change of no id of its own, or does not decode.
    package func read(_ number: UInt64, of device: SyncDevice) throws -> [SyncChange]? {
        let file = changes(of: device).appendingPathComponent(Self.name(number))
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let plain = try Self.decrypt(file, largest: Self.largestChangeFile) { try $0.fileKey(identity: key) }
        guard let changes = try? SyncChange.decoder.decode([SyncChange].self, from: plain) else {
            throw CraveyError(.invalidInput, "\(file.path) holds no changes this cravey reads.")
        }
        for change in changes where change.id.device != device || change.id.file != number || change.time.device != device {
            throw CraveyError(.invalidInput, "\(file.path) holds a change that is not its device's (\(change.id.device), file \(change.id.file)).")
        }
        return changes
    }

    /// The devices that have written change files, and the number of each one's last.
    package func devices() throws -> [SyncDevice: UInt64] {
        let devices = url.appendingPathComponent("devices")
        var found: [SyncDevice: UInt64] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: devices.path) {
            guard name.count == 32, let device = SyncDevice(hex: name) else { continue }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: changes(of: device).path)) ?? []
            found[device] = names.compactMap { name in
                name.count == 24 && name.hasSuffix(".age") ? UInt64(name.prefix(20)) : nil
            }.max() ?? 0
        }
        return found
    }

    /// Encrypts `plain` through `writer` into `file`, its header in the room left at the start.
    private static func encrypt(_ plain: [UInt8], with writer: @autoclosure () throws -> AgeWriter, headerSize: Int, into file: MediaFile) throws {
        _ = try file.seek(to: Int64(headerSize), from: .start)
        let writer = try writer()
        try plain.withUnsafeBytes(writer.write)
        try writer.finish { header in
            _ = try file.seek(to: 0, from: .start)
            try file.writeAll(header)
        }
    }

    /// The plaintext of the age file at `url`, unlocked by `unlock`; refuses one larger than
    /// `largest` before reading it.
    private static func decrypt(_ url: URL, largest: Int, unlock: (AgeReader.Header) throws -> [UInt8]) throws -> Data {
        let descriptor = try FileDescriptor.open(FilePath(url.path), .readOnly, options: [.noFollow, .closeOnExec])
        defer { try? descriptor.close() }
        guard try descriptor.seek(offset: 0, from: .end) <= largest else {
            throw CraveyError(.invalidInput, "\(url.path) is larger than any file cravey writes there (\(largest >> 20) MiB).")
        }
        _ = try descriptor.seek(offset: 0, from: .start)
        let reader = try AgeReader(descriptor, unlock: unlock)
        var plain = Data()
        var buffer = [UInt8](repeating: 0, count: Age.chunkSize)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
            if count == 0 { return plain }
            plain.append(contentsOf: buffer[..<count])
        }
    }
}

extension SyncDevice {
    /// The device named by 32 lower-case hex digits; nil for anything else.
    package init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 32 else { return nil }
        var bytes = [UInt8]()
        for index in stride(from: 0, to: 32, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16),
                  String(decoding: digits[index..<index + 2], as: UTF8.self) == String(format: "%02x", byte) else { return nil }
            bytes.append(byte)
        }
        self.init(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                              bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
    }
}
