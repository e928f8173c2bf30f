import Foundation
import SystemPackage

/// The journal of a `delete-all` under way, `delete-all.pending` in the library folder: present
/// from before its first row goes until its last file is gone, so that whoever takes the
/// writers' lock next finishes a deletion a crash interrupted, and a deleted clip never comes
/// back. It names the database whose rows it deletes: a journal left beside another database (the
/// damaged one was moved aside and a new one made) deletes nothing.
struct DeleteAllJournal: Sendable {
    static let fileName = "delete-all.pending"

    private let folder: FileDescriptor
    private let url: URL

    init(beneath folder: FileDescriptor, shownAs libraryURL: URL) {
        self.folder = folder
        url = libraryURL.appendingPathComponent(Self.fileName)
    }

    /// Whether a deletion was begun and not ended.
    var isPending: Bool {
        var info = stat()
        return fstatat(folder.rawValue, Self.fileName, &info, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// The identity of the database it deletes the rows of (empty from cravey before it named
    /// one); nil when it cannot be read.
    func database() -> String? {
        let descriptor = openat(folder.rawValue, Self.fileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = read(descriptor, &bytes, bytes.count)
        return count < 0 ? nil : String(decoding: bytes.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes the journal naming `database`, and flushes it and its folder to the disk.
    func begin(deleting database: String) throws(CraveyError) {
        let identity = Array(database.utf8)
        let descriptor = openat(folder.rawValue, Self.fileName, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileStorageManager.writeError(errno, url, doing: "start deleting with") }
        defer { close(descriptor) }
        guard write(descriptor, identity, identity.count) == identity.count, fsync(descriptor) == 0, fsync(folder.rawValue) == 0 else {
            let error = FileStorageManager.writeError(errno, url, doing: "start deleting with")
            end()
            throw error
        }
    }

    /// Removes the journal: the deletion is complete, or given up.
    func end() {
        unlinkat(folder.rawValue, Self.fileName, 0)
        fsync(folder.rawValue)
    }
}
