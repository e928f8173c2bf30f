import Foundation
import SystemPackage

extension FileStorageManager {
    /// Writes `data` to `url` all at once or not at all, and durably: a private (0600) temporary
    /// file in the same folder, flushed to disk, then given the name `url` in one step, the folder
    /// flushed too. A short write is
    /// followed by another for the rest; only an error from `write` (a full disk, say) fails. A
    /// failure leaves no temporary file and says what happened to `url` (`doing` names the
    /// action, "write the export to"), with the `Errno` underneath.
    ///
    /// Everything happens beneath the descriptor of `url`'s folder. Without `replacing`, the
    /// name is made with `linkat`, which fails when anything is at `url` (a link included):
    /// nothing there is ever replaced. With `replacing`, `renameat` replaces a regular file only.
    ///
    /// The corresponding C functions are `openat`, `write`, `fsync`, `linkat` and `renameat`.
    package static func writeAtomically(_ data: Data, to url: URL, doing action: String, replacing: Bool = true,
                                        faults: StorageFaults = StorageFaults()) throws(CraveyError) {
        let folder = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw writeError(errno, url, doing: action) }
        defer { close(folder) }
        try writeAtomically(data, named: url.lastPathComponent, in: folder, url: url, doing: action,
                            replacing: replacing, faults: faults)
    }

    private static func writeAtomically(_ data: Data, named name: String, in folder: Int32, url: URL, doing action: String,
                                        replacing: Bool, syncing: Bool = true, faults: StorageFaults) throws(CraveyError) {
        do {
            try writeAtomically(named: name, in: folder, url: url, doing: action, replacing: replacing, syncing: syncing,
                                faults: faults) { file in try data.withUnsafeBytes { try file.writeAll($0) } }
        } catch {
            throw error as? CraveyError ?? writeError((error as? Errno ?? .ioError).rawValue, url, doing: action)
        }
    }

    /// Writes a file a person asked for outside the library (an export, a thumbnail written
    /// elsewhere), mode 0600, with ``writeAtomically(_:to:doing:replacing:faults:)``. Refused
    /// (`.invalidInput`, exit 64): any place inside the library folder, links resolved (its
    /// database, its clips, which only cravey manages); something already at `url` unless
    /// `replacing` (`--force`); and, even then, anything there that is not a regular file.
    package func writeOutside(_ data: Data, to url: URL, doing action: String, replacing: Bool) throws(CraveyError) {
        do {
            try writeOutside(to: url, doing: action, replacing: replacing) { file in
                try data.withUnsafeBytes { try file.writeAll($0) }
            }
        } catch {
            throw error as? CraveyError ?? Self.writeError((error as? Errno ?? .ioError).rawValue, url, doing: action)
        }
    }

    /// ``writeOutside(_:to:doing:replacing:)`` for a file written as it is made (a backup):
    /// `fill` writes it, a piece at a time. A failure of `fill` (its own error, thrown as it is)
    /// leaves nothing.
    package func writeOutside(to url: URL, doing action: String, replacing: Bool, fill: (MediaFile) throws -> Void) throws {
        if let folder = Self.realPath(url.deletingLastPathComponent()), let root = Self.realPath(libraryURL),
           folder == root || folder.hasPrefix(root + "/") {
            throw CraveyError(.invalidInput, "Refusing to \(action) \(url.path): it is inside the library folder \(libraryURL.path), whose files only cravey manages. Choose a place outside it.")
        }
        let folder = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw Self.writeError(errno, url, doing: action) }
        defer { close(folder) }
        try Self.writeAtomically(named: url.lastPathComponent, in: folder, url: url, doing: action, replacing: replacing,
                                 faults: faults, fill: fill)
    }

    /// The path with every link resolved, nil when it does not exist. The corresponding C function is `realpath`.
    static func realPath(_ url: URL) -> String? {
        guard let resolved = realpath(url.path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// ``writeAtomically(_:to:doing:replacing:faults:)`` for a file stored in the library
    /// (a thumbnail), beneath its folder's descriptor.
    /// Without `syncing`, nothing is flushed: for many files written at once, flushed together
    /// afterwards (`syncfs`).
    package func writeAtomically(_ data: Data, to relativePath: String, doing action: String, syncing: Bool = true) throws(CraveyError) {
        let (folder, name) = try locate(relativePath)
        let descriptor = try openFolder(folder)
        defer { try? descriptor.close() }
        try Self.writeAtomically(data, named: name, in: descriptor.rawValue, url: url(of: relativePath), doing: action,
                                 replacing: true, syncing: syncing, faults: faults)
    }

    /// ``writeAtomically(_:to:doing:syncing:)`` holding the writers' lock, for a file a clip owns
    /// that is written outside any other step of the lock (a thumbnail, a waveform): a repair or
    /// `delete-all`, which hold the lock, never see its temporary file, which they would take
    /// for one a crash left and delete. Not for a clip's copy of its words (``keep(_:plays:)``),
    /// which is written inside a transaction that already holds the lock.
    package func writeLocked(_ data: Data, to relativePath: String, doing action: String) throws(CraveyError) {
        do {
            try holdingLock { try writeAtomically(data, to: relativePath, doing: action) }
        } catch {
            throw error as? CraveyError ?? Self.writeError(EIO, url(of: relativePath), doing: action)
        }
    }

    /// The one atomic write: a temporary file `fill` writes, then given `name`. A `fill` that
    /// throws an `Errno` fails as a write of `url`; any other error is thrown as it is.
    private static func writeAtomically(named name: String, in folder: Int32, url: URL, doing action: String,
                                        replacing: Bool, syncing: Bool = true, faults: StorageFaults,
                                        fill: (MediaFile) throws -> Void) throws {
        let temporary = ".\(name).\(UUID().uuidString).tmp"
        do {
            let file = MediaFile(url: url, descriptor: try create(temporary, in: FileDescriptor(rawValue: folder)))
            do {
                file.writeFault = faults.write
                try fill(file)
                if syncing { try file.sync() }
                try file.close()
            } catch {
                try? file.close()
                unlinkat(folder, temporary, 0)
                throw error
            }
        } catch let error as Errno {
            throw writeError(error.rawValue, url, doing: action)
        }
        do throws(CraveyError) {
            if replacing {
                var info = stat()
                if fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT != S_IFREG {
                    throw CraveyError(.invalidInput, "Refusing to \(action) \(url.path): it is not a regular file (a folder, a link or a device), and cravey only replaces files.")
                }
                if renameat(folder, temporary, folder, name) != 0 { throw writeError(errno, url, doing: action) }
            } else if linkat(folder, temporary, folder, name, 0) != 0 {
                if errno == EEXIST {
                    throw CraveyError(.invalidInput, "Refusing to \(action) \(url.path): something is there already.", advice: .forceToReplace)
                }
                throw writeError(errno, url, doing: action)
            }
        } catch {
            unlinkat(folder, temporary, 0)
            throw error
        }
        unlinkat(folder, temporary, 0)
        // The new name on the disk too: written means durable.
        if syncing, fsync(folder) != 0 { throw writeError(errno, url, doing: action) }
    }
}
