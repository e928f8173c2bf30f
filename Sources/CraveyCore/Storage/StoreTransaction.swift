import Foundation
import GRDB
import SystemPackage

/// One change of the library, inside ``LibraryStore/write(_:)``: the writers' lock is held and a
/// database transaction is open. It hands the change the database (``db``, ``repository``) and
/// the file operations that keep files and rows in step; what has to happen at the commit (the
/// changed clips' copies, a saved file taking its name) or after it (deleted files unlinked) it
/// does itself, in the order every other process and any crash can rely on.
package final class StoreTransaction {
    package let db: Database
    private let files: FileStorageManager
    private let store: LibraryStore
    /// The records of the clips saved here, as their copies were written.
    private var saved: [RecordingID: Data] = [:]
    /// Files renamed aside for deletion (their names before and after).
    private var marked: [(original: StoredFile, marked: StoredFile)] = []
    /// Rows deleted here, to put back if their files cannot go.
    private var deleted: [(Recording, [PlayEvent])] = []
    /// Journals of media replaced here, removed once the transaction ends.
    private(set) var journals: [StoredFile] = []
    /// Clips whose copy is written at the commit even if nothing of them changed.
    private var copies: Set<RecordingID> = []
    /// Files this process held while writing them, released once the transaction ends.
    private(set) var releasing: [StoredFile] = []
    /// Whether a saved file was renamed into place (a failed commit leaves it, for a repair).
    private(set) var didRename = false
    /// Whether the transaction lets words go (it deleted a clip, or words a clip was searched
    /// by): they then leave the word index's segments before the commit, and the write-ahead log
    /// after it.
    var forgetsWords: Bool { !deleted.isEmpty || endsDeleteAll || droppedWords }
    /// Whether words a clip was searched by were replaced or removed here.
    private var droppedWords = false
    /// Whether the transaction ends a `delete-all`, whose journal goes after the commit.
    private(set) var endsDeleteAll = false
    /// Whether a `delete-all` removed a file: from then on a failure keeps its journal, for
    /// whoever comes next to finish the deletion.
    private(set) var removedFiles = false
    /// What sync is told beside the rows the transaction changed (``SyncCapture``): the clips'
    /// words stored (or removed: nil), the clips whose media was replaced, the clips deleted,
    /// and whether every clip is compared (a library joining a sync folder).
    private var syncedWords: [RecordingID: Data?] = [:]
    private var replacedMedia: Set<RecordingID> = []
    private var deletedClips: [RecordingID] = []
    private var syncsEverything = false
    /// Whether the transaction merges other devices' changes (``SyncMerge``): what it writes is
    /// noted as told, so only a row that still differs from it is captured.
    private var mergesSync = false
    /// Whether the transaction put changes in the sync outbox for the store to send after its
    /// commit (not a library joining: joining sends them itself, and says what went wrong).
    private(set) var sendsToSync = false

    init(_ db: Database, files: FileStorageManager, store: LibraryStore) {
        self.db = db
        self.files = files
        self.store = store
    }

    /// The rows, in this transaction.
    package var repository: RecordingRepository { RecordingRepository(db) }

    /// Where a file is, for messages.
    package func url(of file: StoredFile) -> URL { files.url(of: file) }

    /// Refuses the change unless the clip is still as `version` shows it (``ClipVersion``):
    /// `.notFound` when it is gone, `.busy` when another process changed it since the question.
    /// Returns the row as it is.
    @discardableResult
    package func expect(_ version: ClipVersion) throws -> Recording {
        let shown = version.recording
        guard let current = try repository.recording(shown.id) else {
            throw CraveyError(.notFound, "\"\(shown.title)\" is no longer in the library; nothing was changed.")
        }
        guard version.matches(current, media: MediaIdentity(of: ClipFiles(current).media(), in: store)) else {
            throw CraveyError(.busy, "\"\(current.title)\" was changed by another cravey meanwhile; nothing was changed. Look at it again, then try again.")
        }
        return current
    }

    // MARK: - Saving

    /// Saves a finished file as the clip `recording` with its plays: `file` (one of the clip's
    /// names while written, or an orphan's) takes the clip's media name, and the row is
    /// inserted. Returns the row.
    ///
    /// The order that makes a save durable: the file's bytes flushed; the clip's copy of its words
    /// written and flushed; the file renamed and its folder flushed; the row inserted, and
    /// committed with the transaction (`synchronous = FULL`). A crash at any instant leaves no row
    /// without its bytes, and a file that a repair registers with its words; a row that cannot be
    /// written leaves the clip there too, and the error says so. Throws `CancellationError` for a
    /// clip given up (``LibraryStore/abandon(_:)``).
    package func save(_ file: StoredFile, as recording: Recording, plays: [PlayEvent] = []) throws -> Recording {
        try save([(file, recording, plays)])[0]
    }

    /// Saves several finished files at once (a restore's clips), each as ``save(_:as:plays:)``
    /// saves one, in the same order of steps: the folder is flushed once for all their copies
    /// and once for all their renames.
    package func save(_ clips: [(file: StoredFile, recording: Recording, plays: [PlayEvent])]) throws -> [Recording] {
        var rows: [Recording] = []
        for (file, recording, plays) in clips {
            let clip = ClipFiles(recording)
            if store.live.isAbandoned(clip.id) { throw CancellationError() }
            releasing.append(file)
            var saved = recording
            saved.filePath = clip.media().path
            // A pin whose slot another clip holds (a clip restored, or registered from its copy)
            // is left out: the slot keeps the clip it has.
            if let slot = saved.pinnedSlot,
               try QuickPlayPins(db).holder(of: slot) != nil || rows.contains(where: { $0.pinnedSlot == slot }) {
                saved.pinnedSlot = nil
            }
            do {
                let descriptor = try files.open(file)
                defer { try? descriptor.close() }
                var info = stat()
                guard fsync(descriptor.rawValue) == 0, fstat(descriptor.rawValue, &info) == 0 else { throw Errno(rawValue: errno) }
                saved.fileSize = Int64(info.st_size)
            } catch {
                let code = (error as? Errno ?? (error as? CraveyError)?.underlying as? Errno)?.rawValue ?? EIO
                throw FileStorageManager.writeError(code, files.url(of: clip.media()), doing: "move the recording to")
            }
            let record = ClipRecord(recording: saved, plays: plays).encoded()
            try files.writeAtomically(clip.file(.copy)!, doing: "keep the words of the clip in", syncingFolder: false) { try $0.write(record) }
            self.saved[clip.id] = record
            rows.append(saved)
        }
        try sync([.recordings])  // every copy's name on the disk before any media takes its own
        for ((file, _, _), saved) in zip(clips, rows) where file != ClipFiles(saved).media() {
            let media = ClipFiles(saved).media()
            do {
                try files.rename(file, to: media)
            } catch {
                throw FileStorageManager.writeError(error.rawValue, files.url(of: media), doing: "move the recording to")
            }
            didRename = true
            store.live.move(file, to: media)
            releasing.append(media)
        }
        try sync([.recordings])
        for ((_, _, plays), saved) in zip(clips, rows) {
            do {
                try repository.insert(saved, plays: plays)
                // Its words, when they came with it (a restore's, a clip registered again).
                for part in ClipFiles.Part.all where part.isSearched {
                    guard let file = ClipFiles(saved).file(part),
                          let data = store.contents(of: file, atMost: Transcript.largestFile) else { continue }
                    try ClipSearch(db).setWords(Transcript(data: data), of: saved.id)
                }
            } catch {
                throw CraveyError(.cannotWrite, "The clip was saved to \(files.url(of: ClipFiles(saved).media()).path), but its library entry could not be written (\(CraveyError(database: error)?.message ?? "\(error)")).",
                                  advice: .registerWithRepair, underlying: error)
            }
        }
        return rows
    }

    /// Writes `data` as a clip's `part` (its waveform, a video's thumbnail: any part but the
    /// media, which is saved, the copy, which the commit writes from the row, and the journal,
    /// which a replacement writes) in place of any there, all at once and durably, now: a clip's
    /// artefacts are on the disk before its row. Returns the file. Without `flushingFolder`, its
    /// name is flushed with the next flush of its folder: a part of a clip saved in this
    /// transaction, whose save flushes `Recordings/` before the row (many clips at once).
    @discardableResult
    package func store(_ data: Data, as part: ClipFiles.Part, of clip: ClipFiles, flushingFolder: Bool = true) throws -> StoredFile {
        guard part != .media, part.remaking != .fromRow, part.origin != .transient, let file = clip.file(part) else {
            preconditionFailure("A \(clip.type.rawValue) clip's \(part) is not stored as bytes.")
        }
        try files.writeAtomically(file, doing: "write the \(part.name)", syncingFolder: flushingFolder || file.folder != .recordings) { try $0.write(data) }
        if part.isSearched {
            if try ClipSearch(db).setWords(Transcript(data: data), of: clip.id) { droppedWords = true }
            syncedWords[clip.id] = data
        }
        return file
    }

    // MARK: - Replacing a clip's media

    /// Puts `file`, a finished new version of `clip`'s media this process wrote (a trim, a
    /// clean-up), in the place of its media, in one rename, and returns its size. The old media
    /// goes with the rename: what was cut is gone.
    ///
    /// The clip's journal (``ClipFiles/Part/journal``, ``ReplacementJournal``: the new file's
    /// name and inode, and `markers`, the clip's markers with the new media) is written and
    /// flushed first and goes after the commit: a crash anywhere in between leaves it, and a
    /// repair then makes what the clip owns (its length, size, loudness, waveform, thumbnail,
    /// copy) again from whichever media is in place, the old or the new, with that media's
    /// markers, so the clip is whole either way. The caller writes the rest in the same
    /// transaction: the row's new facts and `markers`, the waveform and thumbnail.
    package func replaceMedia(of clip: ClipFiles, with file: StoredFile, markers: [ClipMarker]) throws -> Int64 {
        let journal = clip.file(.journal)!
        let size: Int64
        do {
            let descriptor = try files.open(file)
            defer { try? descriptor.close() }
            var info = stat()
            guard fstat(descriptor.rawValue, &info) == 0 else { throw Errno(rawValue: errno) }
            let written = ReplacementJournal(media: file.name, inode: UInt64(info.st_ino), markers: markers)
            try files.writeAtomically(journal, doing: "start replacing the media of") { try $0.write(written.data) }
            journals.append(journal)
            guard fsync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
            size = Int64(info.st_size)
            try files.rename(file, to: clip.media())
            try files.sync(.recordings)
        } catch {
            let code = (error as? Errno ?? (error as? CraveyError)?.underlying as? Errno)?.rawValue ?? EIO
            throw FileStorageManager.writeError(code, files.url(of: clip.media()), doing: "replace")
        }
        store.live.move(file, to: clip.media())
        releasing.append(clip.media())
        replacedMedia.insert(clip.id)
        return size
    }

    // MARK: - Deleting

    /// Deletes clip `id`, atomically for the person: its row and plays, and every file the clip
    /// owns (``ClipFiles/finished``; never a file under another name, whatever its row says),
    /// all go, or nothing changes. Returns the row as it was; `.notFound` when there is none.
    ///
    /// The files are renamed to `.deleting-` names and their folders flushed, the row deleted;
    /// after the commit the files are unlinked. A crash in between leaves `.deleting-` files a
    /// repair restores (the row is there) or finishes (it is gone). A file that cannot be unlinked
    /// after the commit puts the row, its plays and the files back.
    package func delete(_ id: RecordingID) throws -> Recording {
        guard let recording = try repository.recording(id) else {
            throw CraveyError(.notFound, "No recording has the id \(id.description).", advice: .listRecordings)
        }
        for file in ClipFiles(recording).finished {
            guard case .regular = files.status(of: file) else { continue }  // a link or a device there is not the clip's
            let aside = ClipFiles.marked(file)
            do {
                try files.rename(file, to: aside)
            } catch {
                throw FileStorageManager.writeError(error.rawValue, files.url(of: file), doing: "delete")
            }
            marked.append((file, aside))
        }
        try sync(Set(marked.map(\.original.folder)))
        if let row = try repository.delete(id) {
            deleted.append(row)
            deletedClips.append(id)
        }
        return recording
    }

    /// What ``deleteAll()`` removed.
    package struct Deletion: Sendable {
        package var recordings = 0
        package var files = 0
        package var bytes: Int64 = 0
        /// Files in `Recordings/` cravey did not make, left where they are.
        package var untouched: [String] = []
        /// Files that could not be deleted, and why; their clips are kept.
        package var failures: [(file: StoredFile, error: CraveyError)] = []
    }

    /// Deletes every clip: all rows and plays, and every file in `Recordings/` cravey made
    /// (leftovers of crashes included), leaving alone a clip another process is still making and
    /// every file cravey did not make (``Deletion/untouched``).
    ///
    /// A journal (`delete-all.pending`) is flushed before anything goes and removed after the
    /// commit: a crash at any instant leaves it for whoever takes the lock next, who finishes the
    /// deletion, so a deleted clip never comes back. Files go before the rows; the rows of clips
    /// whose files could not go are kept (``Deletion/failures``).
    package func deleteAll(journalWritten: Bool = false) throws -> Deletion {
        if !journalWritten { try store.journal?.begin(deleting: try repository.libraryID()) }
        endsDeleteAll = true
        let rows = try repository.everything()
        var summary = Deletion()
        let entries = [StoredFile.Folder.recordings, .thumbnails].flatMap { folder in
            files.entries(in: folder).filter { folder != .recordings || $0.name != Array("Thumbnails".utf8) }.map { (folder, $0) }
        }
        let ids = Set(rows.map(\.0.id))
        let writing = store.clipsBeingWritten(entries.compactMap { $0.1.file(in: $0.0) }, rows: ids)
        var kept: Set<RecordingID> = []
        for (folder, entry) in entries {
            guard let file = entry.file(in: folder), let name = StoredName(file), let size = entry.status.size else {
                summary.untouched.append(folder.path + "/" + StoredFile.visible(entry.name))
                continue
            }
            // A clip being saved (no row yet) is its writer's, every file of it. Of a clip with
            // a row whose new media a trim or a clean-up is writing, only that file is: the rest
            // goes with the row, or a repair would take it for a crash's leftover and register
            // the deleted clip again.
            if writing.contains(name.clip), !ids.contains(name.clip.id) || name.isWriting { continue }
            do {
                do {
                    try files.remove(file)
                } catch .noSuchFileOrDirectory {}
                removedFiles = true
                summary.files += 1
                summary.bytes += size
            } catch {
                summary.failures.append((file, FileStorageManager.writeError(error.rawValue, files.url(of: file), doing: "delete")))
                kept.insert(name.clip.id)
            }
        }
        summary.untouched.sort()
        try sync([.recordings, .thumbnails])
        for (recording, _) in rows where !kept.contains(recording.id) {
            try recording.delete(db)
            deletedClips.append(recording.id)
            summary.recordings += 1
        }
        return summary
    }

    // MARK: - Repairing

    /// Removes a file a repair found left over (a cut-off write or import, an orphan's waveform,
    /// thumbnail or copy), now; one already gone is no error.
    package func remove(_ file: StoredFile) throws(CraveyError) {
        if let name = StoredName(file), name.marker == nil, name.part.isSearched {
            do {
                if try ClipSearch(db).setWords(nil, of: name.clip.id) { droppedWords = true }
                syncedWords[name.clip.id] = .some(nil)
            } catch {
                throw CraveyError(database: error) ?? CraveyError(.other, "Cannot take the words of \(files.url(of: file).path) out of the search index: \(error).", underlying: error)
            }
        }
        do {
            try files.remove(file)
        } catch .noSuchFileOrDirectory {
            return
        } catch {
            throw FileStorageManager.writeError(error.rawValue, files.url(of: file), doing: "delete")
        }
    }

    /// Gives a file marked for deletion its name back: a deletion a crash interrupted before its
    /// row went.
    package func unmark(_ aside: StoredFile, as original: StoredFile) throws(CraveyError) {
        do {
            try files.rename(aside, to: original)
        } catch {
            throw FileStorageManager.writeError(error.rawValue, files.url(of: original), doing: "restore")
        }
    }

    /// Writes clip `id`'s copy at the commit, as it is then: for a clip saved before clips kept
    /// one.
    package func keepCopy(of id: RecordingID) {
        copies.insert(id)
    }

    // MARK: - The commit

    /// What has to be on the disk when the transaction commits: the copies of the clips it
    /// changed, each flushed, then their folder once (a clip saved here has its copy already,
    /// unless it changed since: a merge's new clip, given its title after its save).
    func prepareCommit(changed: (recordings: Set<Int64>, plays: Set<Int64>)) throws {
        if forgetsWords { try ClipSearch(db).forgetDeleted() }
        var changed = try repository.recordings(rowIDs: changed.recordings, playIDs: changed.plays)
        let rowsChanged = changed
        for id in copies where !changed.contains(where: { $0.id == id }) {
            if let recording = try repository.recording(id) { changed.append(recording) }
        }
        var written: Set<StoredFile.Folder> = []
        for recording in changed {
            guard let copy = ClipFiles(recording).file(.copy) else { continue }
            let record = ClipRecord(recording: recording, plays: try repository.plays(of: recording.id)).encoded()
            guard record != saved[recording.id] else { continue }
            try files.writeAtomically(copy, doing: "keep the words of the clip in", syncingFolder: false) { try $0.write(record) }
            written.insert(copy.folder)
        }
        try sync(written)  // every copy's name on the disk before the commit
        try captureForSync(rowsChanged)
    }

    /// Has sync compare every clip at the commit, as if each had changed: the library is
    /// joining a sync folder, and the folder is told of each clip it was told nothing of.
    package func syncEverything() {
        syncsEverything = true
    }

    /// Has the transaction merge other devices' changes: the words, media and deletions it
    /// writes are theirs, not this device's, and are not captured again as changes of its own.
    package func mergingSync() {
        mergesSync = true
    }

    /// Writes what the transaction changed into the sync outbox (``SyncLog``, ``SyncCapture``),
    /// in the transaction, when the library has joined a sync folder; sync off, one read of an
    /// empty table. `rows`: the clips whose rows changed, as the commit read them.
    private func captureForSync(_ rows: [Recording]) throws {
        let log = SyncLog(db)
        guard let joined = try log.joined() else { return }
        let device = try log.device(joined, at: SyncLog.Place(of: store.libraryURL))
        let capture = SyncCapture(db: db, store: store, device: device.device)
        let clips: [Recording]
        if syncsEverything {
            clips = try repository.recordings()
        } else if mergesSync {
            clips = rows
        } else {
            // The rows' clips, then those whose words or media alone changed, each once.
            let others = Set(syncedWords.keys).union(replacedMedia).subtracting(rows.map(\.id)).sorted { $0.description < $1.description }
            clips = try rows + others.compactMap { try repository.recording($0) }
        }
        var changes: [SyncCapture.Change] = []
        for recording in clips {
            changes += mergesSync ? try capture.changes(of: recording, replacedMedia: false, words: nil)
                                  : try capture.changes(of: recording, replacedMedia: replacedMedia.contains(recording.id), words: syncedWords[recording.id])
        }
        if !mergesSync { changes += deletedClips.map { ($0, .delete) } }
        if !clips.isEmpty || !deletedClips.isEmpty { changes += try capture.pins() }
        sendsToSync = try !log.record(changes, as: device).isEmpty && !syncsEverything
    }

    /// After the commit: the journals of media replaced go, and the deleted files go for good. A
    /// file that cannot go puts its clip back (rows, plays and files), and the error says so.
    func finishCommit() throws {
        for journal in journals { try? files.remove(journal) }  // one left is a repair's to finish, no fault
        if !journals.isEmpty { try? files.sync(.recordings) }
        guard !marked.isEmpty else { return }
        do {
            for (_, aside) in marked {
                do {
                    try files.remove(aside)
                } catch .noSuchFileOrDirectory {}
            }
        } catch {
            let failure = FileStorageManager.writeError(error.rawValue, files.url(of: marked[0].original), doing: "delete")
            try store.putBack(deleted)
            undoMarks()
            throw failure
        }
        try sync(Set(marked.map(\.original.folder)))
    }

    /// After a rollback: the files marked for deletion get their names back.
    func undoMarks() {
        for (original, aside) in marked { try? files.rename(aside, to: original) }  // clean-up on a failing path
        marked = []
    }

    private func sync(_ folders: Set<StoredFile.Folder>) throws(CraveyError) {
        for folder in folders {
            do {
                try files.sync(folder)
            } catch {
                throw FileStorageManager.writeError(error.rawValue, files.url(of: folder), doing: "flush the folder")
            }
        }
    }
}

@available(*, unavailable)
extension StoreTransaction: Sendable {}
