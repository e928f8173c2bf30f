import Foundation
import SystemPackage

/// The sync folder's `inbox/` (docs/sync.md), reached as `library.sync.inbox`: audio or video a
/// phone or another recorder drops there is imported once, then taken out of the inbox.
///
/// Syncthing gives no lock between machines, so "once" holds by construction: a file's clip id
/// is made from its bytes (their SHA-256), so two machines importing one file at once make one
/// clip, which the merge's rules keep once (its media, fields and plays merged as any clip's). A
/// file is taken out only once its clip is sent; a file whose clip is here already (imported
/// here, or merged from the machine that imported it) or was deleted is taken out without an
/// import, so a deleted clip never comes back from the inbox.
///
/// Only regular files directly inside `inbox/` are looked at, never through a link; a hidden
/// name (Syncthing's `.syncthing.NAME.tmp` while it writes) or a file changed within the last
/// ``settle`` seconds (a copy or a recorder still writing) is left until it is whole; a file that
/// is not media cravey imports is left in place and noted with why (``Status/inbox``, `cravey
/// sync --status`), and not tried again while it stays as it is. Nothing else is read, changed
/// or deleted. The import itself (FFmpeg) is CraveyKit's `take(now:)`.
package struct SyncInbox: Sendable {
    package let store: LibraryStore

    /// How long a file must be left unchanged before it is taken (a copy or a recorder writing
    /// into the inbox changes it at least this often).
    package static let settle: TimeInterval = 5

    /// A file of the inbox that is not imported, and why.
    package struct Refusal: Sendable, Equatable {
        package var name: String
        package var size: Int64
        package var modified: Date
        package var reason: String

        package init(name: String, size: Int64, modified: Date, reason: String) {
            (self.name, self.size, self.modified, self.reason) = (name, size, modified, reason)
        }
    }

    /// A file of the inbox that may be imported: whole, regular, not refused as it is.
    package struct Candidate: Sendable, Equatable {
        package var name: String
        package var size: Int64
        package var modified: Date
        package var inode: UInt64
    }

    /// What taking the inbox did.
    package struct Taking: Sendable, Equatable {
        /// The clips imported here.
        package var imported: [RecordingID] = []
        /// The files taken out of the inbox: imported here, or their clip here already.
        package var taken = 0
        /// Files left until they are whole, and files refused (not media cravey imports).
        package var arriving = 0
        package var refused = 0

        package init() {}
    }

    /// What is in the inbox now.
    package struct Scan: Sendable, Equatable {
        /// The inbox folder; nil when there is none (not there: nothing to import).
        package var folder: URL?
        package var candidates: [Candidate] = []
        /// Files still arriving (a hidden name, or changed within ``settle`` seconds), by name.
        package var arriving: [String] = []
        /// Files refused: not regular files, or refused before and unchanged since.
        package var refused: [Refusal] = []

        /// What a sync that imports nothing did of it: the files arriving and refused, counted.
        package var taking: Taking {
            var taking = Taking()
            (taking.arriving, taking.refused) = (arriving.count, refused.count)
            return taking
        }
    }

    /// What is in the inbox of the folder the library syncs with, at `now`. Throws `.notFound`
    /// when the library syncs with no folder.
    package func scan(now: Date = Date()) throws -> Scan {
        guard let joined = try LibrarySync(store: store).joined() else {
            throw CraveyError(.notFound, "This library syncs with no folder: join one first (`cravey sync FOLDER`).")
        }
        let folder = joined.folder.appendingPathComponent("inbox")
        guard let inbox = Self.open(folder) else { return Scan(folder: nil) }
        defer { try? inbox.close() }
        let before = Dictionary(try store.read { db in try SyncLog(db).inboxRefused() }.map { ($0.name, $0) }) { first, _ in first }
        var scan = Scan(folder: folder)
        // (Read through the folder's own descriptor: a name swapped for a link meanwhile lists
        // nothing elsewhere.)
        let entries = FileStorageManager.entries(of: inbox).compactMap { entry in String(validating: entry.name, as: UTF8.self).map { ($0, entry.status) } }
        for (name, status) in entries.sorted(by: { $0.0 < $1.0 }) {
            if name.hasPrefix(".") {
                if name.hasPrefix(".syncthing.") { scan.arriving.append(name) }  // Syncthing writing it
                continue
            }
            switch status {
            case .missing:
                continue  // gone meanwhile
            case .other:
                // (Refused whatever its size and time: they are never compared.)
                scan.refused.append(Refusal(name: name, size: 0, modified: Date(timeIntervalSince1970: 0),
                                            reason: "not a regular file (a link, a folder...): only audio or video files directly inside inbox/ are imported"))
            case .regular(let size, let modified):
                // (A time ahead of this machine's, a phone's clock ahead, is no sign of a write.)
                if (0..<Self.settle).contains(now.timeIntervalSince(modified)) {
                    scan.arriving.append(name)
                } else if let refused = before[name], refused.size == size, refused.modified == modified {
                    scan.refused.append(refused)
                } else {
                    // Its inode, so that the file taken is the one scanned.
                    var info = stat()
                    guard fstatat(inbox.rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                    scan.candidates.append(Candidate(name: name, size: size, modified: modified, inode: UInt64(info.st_ino)))
                }
            }
        }
        return scan
    }

    /// The inbox folder at `url` opened, never through a link; nil when it is not there.
    private static func open(_ url: URL) -> FileDescriptor? {
        try? FileDescriptor.open(FilePath(url.path), .readOnly, options: [.directory, .noFollow, .closeOnExec])
    }

    /// Opens `candidate` in `inbox` (never through a link, the inbox included, and only while it
    /// is the file scanned) and reads its clip id from its bytes; nil when it changed or went
    /// since it was scanned. The corresponding C function is `openat`.
    package func open(_ candidate: Candidate, in inbox: URL) throws -> (FileDescriptor, RecordingID)? {
        guard let folder = Self.open(inbox) else { return nil }
        let opened = openat(folder.rawValue, candidate.name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        try? folder.close()
        guard opened >= 0 else { return nil }
        let descriptor = FileDescriptor(rawValue: opened)
        var status = stat()
        guard fstat(descriptor.rawValue, &status) == 0, status.st_mode & S_IFMT == S_IFREG, UInt64(status.st_ino) == candidate.inode,
              Int64(status.st_size) == candidate.size else {
            try? descriptor.close()
            return nil
        }
        do {
            let id = try Self.id(of: descriptor)
            _ = try descriptor.seek(offset: 0, from: .start)
            return (descriptor, id)
        } catch {
            try? descriptor.close()
            throw error
        }
    }

    /// The clip id of the bytes `descriptor` reads: the first 128 bits of their SHA-256, as a
    /// UUID of version 8 (RFC 9562's own layout), so one file makes one id on every machine.
    static func id(of descriptor: FileDescriptor) throws -> RecordingID {
        var bytes = try SHA256.of(descriptor).hash.digest()
        bytes[6] = bytes[6] & 0x0f | 0x80  // version 8
        bytes[8] = bytes[8] & 0x3f | 0x80  // the variant of RFC 9562
        return RecordingID(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                       bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
    }

    /// Whether clip `id` is here already or was deleted: its file is taken out, not imported.
    package func isKnown(_ id: RecordingID) throws -> Bool {
        try store.read { db in try RecordingRepository(db).recording(id) != nil || SyncLog(db).isDeleted(id) }
    }

    /// Notes the files refused (in place of those noted before), then, once the library's
    /// changes are sent (each clip imported told to the folder), takes `taken` out of the inbox,
    /// each only while it is the file scanned. A send that fails leaves them all for the next sync
    /// and throws why.
    package func finish(refused: [Refusal], taken: [Candidate], in inbox: URL) throws {
        try store.write { tx in try SyncLog(tx.db).refuseInbox(refused) }
        guard !taken.isEmpty else { return }
        try LibrarySync(store: store).send()
        guard let folder = Self.open(inbox) else { return }
        defer { try? folder.close() }
        for file in taken {
            var status = stat()
            guard fstatat(folder.rawValue, file.name, &status, AT_SYMLINK_NOFOLLOW) == 0, UInt64(status.st_ino) == file.inode,
                  Int64(status.st_size) == file.size else { continue }  // gone, or another file of that name since
            _ = unlinkat(folder.rawValue, file.name, 0)
        }
    }
}

