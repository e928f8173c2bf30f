import Foundation
import SystemPackage

extension FileStorageManager {
    /// The journal of a `delete-all` under way: present from before its first row goes until its
    /// last file is gone, so whoever comes next finishes a deletion a crash interrupted.
    package static let deleteAllJournal = "delete-all.pending"

    /// What a deletion of everything removed.
    package struct Deletion: Sendable, Equatable {
        package var recordings = 0
        package var files = 0
        package var bytes: Int64 = 0
        /// Files in `Recordings/` cravey did not make, left where they are.
        package var untouched: [String] = []
    }

    /// Deletes one recording, atomically for the person: either the row, the media file, the
    /// thumbnail, the waveform and the clip's copy of its words are all gone, or nothing
    /// changed. Returns the row it deleted.
    ///
    /// Under the writers' lock, in this order: the files are renamed to `.deleting-` names
    /// (reversible) and their folders flushed to the disk, the row is deleted (the commit point,
    /// durable), the files are unlinked and the folders flushed again. So a power cut at any
    /// instant leaves the clip whole or marked for deletion, never back under its own name
    /// without its row. A failure
    /// before the commit point renames the files back; a failed unlink puts the row back too. A
    /// crash in between leaves `.deleting-` files that a repair restores (row still there) or
    /// finishes (row gone).
    package func delete(_ id: UUID) throws -> Recording {
        try exclusively {
            guard let recording = try repository.fetch(id: id) else {
                throw CraveyError(.notFound, "No recording has the id \(id.uuidString.lowercased()).", advice: .listRecordings)
            }
            var marked: [URL] = []
            let deleted: (Recording, [PlayEvent])?
            do {
                let files = [recording.filePath, recording.thumbnailPath, Self.waveformPath(for: id, type: recording.type),
                             Self.metadataPath(for: id, type: recording.type)]
                for path in files.compactMap({ $0 }) {
                    if let url = try markForDeletion(path) { marked.append(url) }
                }
                try syncFolders(of: marked)
                deleted = try repository.delete(id: id)
            } catch {
                marked.forEach(unmark)
                throw error
            }
            do {
                for url in marked { try remove(url) }
                try syncFolders(of: marked)
            } catch {
                if let deleted { try repository.restore([deleted]) }
                marked.forEach(unmark)
                throw error
            }
            return recording
        }
    }

    /// Deletes every recording: all rows and play events, every media file and thumbnail under
    /// `Recordings/` that cravey made (orphans and crash leftovers included), leaving no deleted
    /// text in the database. A recording another process is still making (its `.partial`,
    /// `.finishing` and thumbnail) is left alone, and so is every file cravey did not make
    /// (``StoredName``): it is reported, never deleted.
    ///
    /// Atomic for the person, under the writers' lock: a journal (`delete-all.pending`) is
    /// written before the first row goes and removed after the last file; after a crash at any
    /// instant the next taker of the lock (``exclusively(_:)``) finishes the deletion, so a
    /// deleted clip never comes back as a recovered one.
    package func deleteAll() throws -> Deletion {
        guard isStored else { return Deletion() }
        return try exclusively {
            try beginDeletingAll()
            return try finishDeletingAll()
        }
    }

    /// Finishes the `delete-all` a crash interrupted, if its journal names this database; a
    /// journal of another database (this one was moved aside, as cravey advises when it is
    /// damaged, and a new one made) deletes nothing: it goes, and the clips stay.
    func finishPendingDeleteAll() throws {
        let named = journal()
        if let named, !named.isEmpty, named != (try? repository.libraryID()) ?? nil {
            endDeletingAll()
            return
        }
        try finishDeletingAll()
    }

    /// What the journal holds: the identity of the database whose rows it deletes (empty from
    /// cravey before it named one); nil when it cannot be read.
    private func journal() -> String? {
        guard let root else { return nil }
        let descriptor = openat(root.rawValue, Self.deleteAllJournal, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = read(descriptor, &bytes, bytes.count)
        return count < 0 ? nil : String(decoding: bytes.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Flushes to the disk the folders `urls` are in.
    private func syncFolders(of urls: [URL]) throws(CraveyError) {
        let folders = Set(urls.compactMap { try? locate($0).folder })
        for folder in Folder.allCases where folders.contains(folder) {
            do throws(Errno) {
                try syncFolder(folder)
            } catch {
                throw Self.writeError(error.rawValue, url(of: folder), doing: "flush the folder")
            }
        }
    }

    /// Whether a `delete-all` was interrupted: its journal is in the library folder.
    package var isDeletingAll: Bool {
        guard let root else { return false }
        var info = stat()
        return fstatat(root.rawValue, Self.deleteAllJournal, &info, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// Writes the `delete-all` journal, naming this database, and flushes it, and its folder,
    /// to the disk.
    private func beginDeletingAll() throws {
        guard let root else { return }
        let identity = Array((try repository.libraryID() ?? "").utf8)
        let url = libraryURL.appendingPathComponent(Self.deleteAllJournal)
        let descriptor = openat(root.rawValue, Self.deleteAllJournal, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.writeError(errno, url, doing: "start deleting with") }
        defer { close(descriptor) }
        guard write(descriptor, identity, identity.count) == identity.count, fsync(descriptor) == 0, fsync(root.rawValue) == 0 else {
            let error = Self.writeError(errno, url, doing: "start deleting with")
            unlinkat(root.rawValue, Self.deleteAllJournal, 0)
            throw error
        }
    }

    /// Removes the `delete-all` journal: the deletion is complete (or was given up and undone).
    private func endDeletingAll() {
        guard let root else { return }
        unlinkat(root.rawValue, Self.deleteAllJournal, 0)
        fsync(root.rawValue)
    }

    /// Deletes everything the journal stands for, then removes the journal; called under the
    /// writers' lock. When files cannot be deleted, their rows come back (so no file is left
    /// without its row) and the journal goes: the deletion is given up, not retried.
    @discardableResult
    func finishDeletingAll() throws -> Deletion {
        let deleted: [(Recording, [PlayEvent])]
        do {
            deleted = try repository.deleteAll()
        } catch {
            // Nothing was deleted (a damaged database, say): the journal must not outlive this,
            // or a later command would delete every file.
            endDeletingAll()
            throw error
        }
        var summary = Deletion(recordings: deleted.count)
        var failed: [(path: String, error: CraveyError)] = []
        let live = liveStems()
        for (path, size) in storedFilesWithSizes() {
            let url = url(of: path)
            let folder: Folder = path.hasPrefix(Self.thumbnailsFolder + "/") ? .thumbnails : .recordings
            guard Self.storedName(url.lastPathComponent, in: folder) != nil else {
                summary.untouched.append(path)
                continue
            }
            if live.contains(Self.stem(of: url.lastPathComponent)) { continue }
            do {
                try remove(url)
                summary.files += 1
                summary.bytes += size
            } catch {
                failed.append((path, error))
            }
        }
        // A name that is not UTF-8 cravey never gives: not its file.
        for file in unreadableNames() {
            summary.untouched.append((file.folder == .thumbnails ? Self.thumbnailsFolder : Self.recordingsFolder)
                                     + "/" + Self.visibleName(file.name))
        }
        // What was removed is gone on the disk before the journal that says so goes.
        for folder in [Folder.recordings, .thumbnails] { try? syncFolder(folder) }
        guard failed.isEmpty else {
            // Rows whose file is still there come back, so no file is left without its row.
            let remaining = Set(failed.map(\.path))
            try repository.restore(deleted.filter { remaining.contains($0.0.filePath) })
            endDeletingAll()
            var error = CraveyError(.cannotWrite, "Deleted \(summary.files) files, but \(failed.count) could not be deleted; their recordings are kept. First failure: \(failed[0].error.message)",
                                    underlying: failed[0].error)
            error.advice = failed[0].error.advice
            throw error
        }
        endDeletingAll()
        // The deleted titles and notes leave the write-ahead log too; the deletion is done
        // whatever this says.
        try repository.checkpoint()
        return summary
    }
}
