import Foundation
import SystemPackage

extension FileStorageManager {
    /// Saves a finished file into the library with its row, as one step under the writers'
    /// lock: `file` (written in `Recordings/` under a writing name) is renamed to
    /// `recording.filePath`, its size read, and the row inserted; so every other process sees the
    /// clip saved or not yet saved, never a file without its row. The lock this process held on
    /// the file while writing it (``create(_:)``) goes once it is saved. Returns the row.
    ///
    /// Saved means durable, in an order no crash can turn into a row without its bytes, or a
    /// clip without its words: the file's bytes are flushed to the disk; the clip's own copy of
    /// its row and plays (``keep(_:plays:)``) is written and flushed; the file is renamed and the
    /// folder flushed; then the row is committed (SQLite `synchronous = FULL`: the commit returns
    /// once it is on disk). A power cut before the commit leaves a file a repair registers with
    /// its title, notes, date and plays, never as "Recovered".
    ///
    /// The file is never deleted here: if the row cannot be written, the clip stays in
    /// `Recordings/`, where a repair finds it, and the error says so.
    package func save(_ file: URL, as recording: Recording, plays: [PlayEvent] = []) throws -> Recording {
        defer { release(file) }
        return try exclusively {
            if abandoned.withLock({ $0.contains(recording.id) }) { throw CancellationError() }
            let destination = url(of: recording.filePath)
            var saved = recording
            do throws(Errno) {
                try syncFile(file)
                guard let size = size(of: file) else { throw Errno.noSuchFileOrDirectory }
                saved.fileSize = size
            } catch {
                throw Self.writeError(error.rawValue, destination, doing: "move the recording to")
            }
            try keep(saved, plays: plays)
            do throws(Errno) {
                try moveFile(file, to: destination)
                try syncFolder(.recordings)
            } catch {
                throw Self.writeError(error.rawValue, destination, doing: "move the recording to")
            }
            do {
                try repository.insert(saved, plays: plays, alreadyKept: true)
            } catch {
                throw CraveyError(.cannotWrite, "The clip was saved to \(destination.path), but its library entry could not be written (\(CraveyError(database: error)?.message ?? "\(error)")).",
                                  advice: .registerWithRepair, underlying: error)
            }
            return saved
        }
    }

    /// Writes a video's thumbnail (a JPEG) under `Recordings/Thumbnails/` in one step, under the
    /// writers' lock (``writeLocked(_:to:doing:)``); returns its path relative to the library.
    package func storeThumbnail(_ jpeg: Data, for id: UUID) throws(CraveyError) -> String {
        let relative = Self.thumbnailPath(for: id)
        try writeLocked(jpeg, to: relative, doing: "write the thumbnail")
        return relative
    }

    /// Replaces the thumbnail of clip `id` with `jpeg`: the file replaced in one rename and the
    /// row pointing at it, together under the writers' lock, so every other process sees the old
    /// thumbnail or the new one; a thumbnail the row kept under another name goes. Returns the
    /// row as it now is; `.notFound` when the row is gone (nothing changes then).
    package func replaceThumbnail(of id: UUID, title: String, with jpeg: Data) throws -> Recording {
        try exclusively {
            guard let current = try repository.fetch(id: id) else {
                throw CraveyError(.notFound, "\"\(title)\" is no longer in the library.")
            }
            let relative = try storeThumbnail(jpeg, for: id)
            guard current.thumbnailPath != relative else { return current }
            let updated = try repository.updateThumbnail(of: id, to: relative)
            if let old = current.thumbnailPath { try? remove(absoluteURL(for: old)) }
            return updated
        }
    }
}
