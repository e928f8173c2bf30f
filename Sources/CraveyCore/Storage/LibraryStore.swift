import Foundation
import GRDB
import SystemPackage

/// A library's files and rows, and the one way to change them together: GRDB's shape.
///
/// ``read(_:)`` reads a consistent snapshot of the rows and takes no lock. ``write(_:)`` is every
/// change of the library (a save, an import, an edit, a counted play, a delete, `delete-all`, a
/// repair, a restore, a thumbnail or waveform stored): it takes the writers' lock once, finishes
/// a `delete-all` a crash interrupted, opens one database transaction and hands the change a
/// ``StoreTransaction``; the copies of the clips it changed are written before the commit.
///
/// Several processes share one library by one protocol (docs/architecture.md, "Several
/// processes, one library"): the writers' lock (``WritersLock``) around every change; each file being written
/// locked by its writer (``LiveFiles``) and left alone by everyone else; a `delete-all` begun is
/// finished by whoever comes next (``DeleteAllJournal``).
package final class LibraryStore: Sendable {
    /// The library folder; nil when there is none (a command that only reads, before any clip).
    package let files: FileStorageManager?
    let database: AppDatabase
    private let lock: WritersLock?
    let journal: DeleteAllJournal?
    let live = LiveFiles()
    private let changes = ClipChanges()
    /// Who is told when a change's send to the sync folder fails (``LibrarySync/whenUnsent(_:)``).
    let unsent = SyncUnsent()

    /// Opens the library in the folder at `url`, creating the folder, its folders (0700) and its
    /// database (0600) when `creating` and they are missing; without it a folder that is not
    /// there, or holds no database yet, reads as an empty library and nothing is made. The
    /// tables are made or migrated under the writers' lock; a library from before clips kept
    /// their copies gets them written once; a `delete-all` a crash interrupted is finished.
    package init(at url: URL, creating: Bool) throws(CraveyError) {
        libraryURL = url.standardizedFileURL
        let files = try FileStorageManager(at: url, creating: creating, databaseName: AppDatabase.fileName)
        self.files = files
        lock = files.map { $0.writersLock() }
        journal = files.map { $0.deleteAllJournal() }
        guard let files, files.isStored, let lock else {
            do {
                database = try AppDatabase()
            } catch {
                throw CraveyError(.other, "Cannot make an empty library in memory: \(error).", underlying: error)
            }
            return
        }
        let file = files.url(of: StoredFile(.library, AppDatabase.fileName))
        var migrated = false
        do {
            database = try AppDatabase(url: file)
            if try database.needsMigration() {
                try lock.hold { try database.migrate() }
                migrated = true
            }
        } catch let error as CraveyError {
            throw error
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw CraveyError(.other, "The library database \(file.path) is damaged (\(error.message ?? "not a database")).",
                              advice: .moveDamagedDatabase(file.path), underlying: error)
        } catch {
            throw CraveyError(database: error)
                ?? CraveyError(.cannotWrite, "Cannot open the library database \(file.path): \(error).", advice: .chooseLibrary, underlying: error)
        }
        database.observe(changes)
        // Work a change would do first anyway; a library that cannot be written keeps it for a
        // command that can, and still reads.
        if migrated {
            try? writeMissingCopies(files, lock)
            try? indexWords(lock)
        }
        if journal?.isPending == true { _ = try? write { _ in } }
    }

    /// The library folder.
    package let libraryURL: URL

    /// Whether the library has its database on the disk (false: an empty one in memory).
    package var isStored: Bool { files?.isStored ?? false }

    /// Why nothing may be written here, or nil when a change may go: the one place that
    /// decides it. `.notFound` without a library, `.newerLibrary` for one a newer cravey wrote.
    package var refusal: CraveyError? {
        if let newer = database.newer { return newer }
        guard isStored else { return CraveyError(.notFound, "There is no library at \(libraryURL.path).") }
        return nil
    }

    // MARK: - Reading and writing

    /// Reads the rows in one consistent snapshot, taking no lock.
    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        try database.read(body)
    }

    /// Changes the library: one call holds the writers' lock once (never again on the same
    /// thread), finishes a pending `delete-all`, and runs `body` in one database transaction with
    /// the file operations of ``StoreTransaction``. Before the commit the copies of the clips
    /// the transaction changed are written and saved files renamed into place, and, when the
    /// library syncs, its changes put in the sync outbox; after it, deleted files are unlinked,
    /// and (the lock let go) the outbox is sent to the sync folder (``LibrarySync/send(afterWriting:)``):
    /// a folder that cannot be written now (a USB stick unplugged) costs the change nothing: the
    /// outbox keeps what it holds for the next send, and whoever asked is told
    /// (``LibrarySync/whenUnsent(_:)``: a command says it). Throwing rolls the rows back (and undoes
    /// deletions begun).
    @discardableResult
    package func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        if let refusal { throw refusal }
        guard let files, let lock else { throw CraveyError(.notFound, "There is no library at \(libraryURL.path).") }
        let (result, sends) = try lock.hold {
            if let journal, journal.isPending { try finishDeletingAll(files, journal) }
            return try transaction(files, body)
        }
        if sends { LibrarySync(store: self).sendAfterCommit() }
        return result
    }

    /// Reads the rows while no change is under way (the writers' lock held, a pending
    /// `delete-all` finished first where the library can be written), so that what the folder
    /// holds and what the rows say are seen together: a clip being saved is saved or not begun,
    /// never a file without its row. What `doctor` looks at. Opens no write transaction, so a
    /// read-only library can be examined.
    package func readSettled<T>(_ body: (Database) throws -> T) throws -> T {
        guard let files, let lock, isStored else { return try read(body) }
        return try lock.hold {
            if refusal == nil, let journal, journal.isPending { try finishDeletingAll(files, journal) }
            return try read(body)
        }
    }

    /// One transaction, the writers' lock held; and whether it put changes in the sync outbox
    /// to send once the lock is let go.
    private func transaction<T>(_ files: FileStorageManager, _ body: (StoreTransaction) throws -> T) throws -> (T, Bool) {
        var current: StoreTransaction?
        defer { current?.releasing.forEach(live.release) }
        let result: T
        do {
            result = try database.write { db in
                let transaction = StoreTransaction(db, files: files, store: self)
                current = transaction
                changes.begin()
                let result = try body(transaction)
                try transaction.prepareCommit(changed: changes.rowIDs())
                return result
            }
        } catch {
            current?.undoMarks()
            if current?.endsDeleteAll == true, current?.removedFiles == false { journal?.end() }
            if let error = error as? CraveyError { throw error }
            guard current?.didRename == true, !(error is CancellationError) else { throw CraveyError(database: error) ?? error }
            throw CraveyError(.cannotWrite, "The clip was saved in \(files.url(of: .recordings).path), but its library entry could not be written (\(CraveyError(database: error)?.message ?? "\(error)")).",
                              advice: .registerWithRepair, underlying: error)
        }
        try current?.finishCommit()
        if current?.endsDeleteAll == true { journal?.end() }
        let sends = current?.sendsToSync == true
        if current?.forgetsWords == true {
            // The deleted titles, notes, words and ids leave the write-ahead log too
            // (secure_delete clears them from the file's free pages, and the word index was
            // merged before the commit): deleted is gone from every file.
            do {
                try database.checkpoint()
            } catch {
                throw CraveyError(.cannotWrite, "The deletion is done, but its words could not be cleared from \(files.url(of: StoredFile(.library, AppDatabase.fileName + "-wal")).path) yet (\(CraveyError(database: error)?.message ?? "\(error)")); the next deletion clears them.",
                                  underlying: error)
            }
        }
        return (result, sends)
    }

    /// Finishes the `delete-all` its journal stands for, if the journal names this database; a
    /// journal of another database (this one was made after the damaged one was moved aside)
    /// deletes nothing and goes.
    private func finishDeletingAll(_ files: FileStorageManager, _ journal: DeleteAllJournal) throws {
        let named = journal.database()
        let identity = try read { db in try RecordingRepository(db).libraryID() }
        if let named, !named.isEmpty, named != identity {
            journal.end()
            return
        }
        do {
            let (deletion, _) = try transaction(files) { tx in try tx.deleteAll(journalWritten: true) }
            if let failure = deletion.failures.first?.error { throw failure }
        } catch {
            // The deletion cannot be finished now (a damaged database, a file that cannot go):
            // the journal must not outlive this, or a later command would delete every file.
            journal.end()
            throw error
        }
    }

    /// Puts back rows and plays a deletion removed, whose files could not go; the lock is held.
    func putBack(_ rows: [(Recording, [PlayEvent])]) throws {
        guard !rows.isEmpty else { return }
        try database.write { db in
            for (recording, plays) in rows { try RecordingRepository(db).insert(recording, plays: plays) }
        }
    }

    /// Writes the copy of every clip that has none (a library made before clips kept one), once,
    /// when its database is brought up to date; flushed with one `sync` at the end.
    private func writeMissingCopies(_ files: FileStorageManager, _ lock: WritersLock) throws {
        try lock.hold {
            let clips = try read { db in try RecordingRepository(db).everything() }
            for (recording, plays) in clips {
                guard let copy = ClipFiles(recording).file(.copy), files.status(of: copy) == .missing else { continue }
                let record = ClipRecord(recording: recording, plays: plays).encoded()
                try files.writeAtomically(copy, doing: "keep the words of the clip in", syncing: false) { try $0.write(record) }
            }
            sync()  // all of them on the disk at once (Glibc hides syncfs, which would do one file system)
        }
    }

    /// Puts the words of every clip that has them in the word index (``ClipSearch``), once, when
    /// its database is brought up to date (the migration that made the index could not read them).
    private func indexWords(_ lock: WritersLock) throws {
        try lock.hold {
            let words = searchedWords(of: try read { db in try RecordingRepository(db).recordings() })
            guard !words.isEmpty else { return }
            try database.write { db in
                for (id, transcript) in words { try ClipSearch(db).setWords(transcript, of: id) }
            }
        }
    }

    /// The words each of `recordings` is searched by (its transcript, ``ClipFiles/Part/isSearched``),
    /// for those that have them.
    package func searchedWords(of recordings: [Recording]) -> [RecordingID: Transcript] {
        var words: [RecordingID: Transcript] = [:]
        for recording in recordings {
            for part in ClipFiles.Part.all where part.isSearched {
                guard let file = ClipFiles(recording).file(part), status(of: file).size != nil,
                      let transcript = contents(of: file, atMost: Transcript.largestFile).flatMap(Transcript.init(data:)) else { continue }
                words[recording.id] = transcript
            }
        }
        return words
    }

    /// What SQLite finds wrong with the database file, one line each; empty when it is sound.
    package func integrityProblems() throws -> [String] {
        try database.integrityProblems()
    }

    // MARK: - Files being written

    /// Creates a clip's media file for writing under one of its writing names (a recording's
    /// `.partial`, an import's `.importing`, a rewrite's `.finishing`), locked from its creation
    /// until it is saved or removed: under the writers' lock, so no other process ever sees it
    /// unowned. Throws `Errno` (a file already there: `.fileExists`), `CancellationError` for a
    /// clip given up, or a ``CraveyError`` for a library that cannot be written.
    package func create(_ file: StoredFile) throws -> MediaFile {
        guard let name = StoredName(file), name.isWriting else {
            preconditionFailure("\(file) is not a name a clip's media has while it is written.")
        }
        if let refusal { throw refusal }
        guard let files, let lock else { throw CraveyError(.notFound, "There is no library at \(libraryURL.path).") }
        return try lock.hold {
            if live.isAbandoned(name.clip.id) { throw CancellationError() }
            let descriptor = try files.create(file)
            do throws(Errno) {
                try live.hold(file, descriptor)
            } catch {
                try? descriptor.close()
                try? files.remove(file)  // clean-up of the file just made
                throw CraveyError(.cannotWrite, "Cannot lock \(files.url(of: file).path) while writing it: \(error.description).", underlying: error)
            }
            return MediaFile(url: files.url(of: file), file: file, descriptor: descriptor, writeFault: files.faults.write)
        }
    }

    /// Creates `file` as ``create(_:)`` does, has `fill` write it and closes it; when anything
    /// throws, removes it: a file that could not be filled is never left behind.
    package func create(_ file: StoredFile, filling fill: (MediaFile) throws -> Void) throws {
        let media = try create(file)
        do {
            try fill(media)
            try media.close()
        } catch {
            discard(media)
            throw error
        }
    }

    /// Gives up a file this process created and could not fill: closes and removes it.
    package func discard(_ media: MediaFile) {
        try? media.close()  // clean-up on a failing path
        guard let file = media.file else { return }
        remove(file)
    }

    /// Removes a file this process was writing and lets go of it; one already gone is no error.
    package func remove(_ file: StoredFile) {
        defer { live.release(file) }
        try? files?.remove(file)  // ENOENT, or a failure a repair will find: the file is no longer this process's
    }

    /// Lets go of a file this process wrote: it is saved, or it is no longer its own to keep.
    package func release(_ file: StoredFile) {
        live.release(file)
    }

    /// Puts the finished rewrite of a file this process is writing in its place, in one rename:
    /// a reader sees one or the other. On failure the rewrite is removed and the file stays.
    package func replace(_ file: StoredFile, with rewrite: StoredFile) throws {
        guard let files else { throw CraveyError(.notFound, "There is no library at \(libraryURL.path).") }
        do {
            try files.rename(rewrite, to: file)
            live.move(rewrite, to: file)
        } catch {
            remove(rewrite)
            throw error
        }
    }

    /// Gives up clip `id` for good while it is being written (an import stopped by Ctrl-C),
    /// unless it is saved already: every file this process is writing for it goes, and nothing
    /// more is created or saved for it. Returns whether it was given up (false: its row is
    /// there). Under the writers' lock, so a save under way completes first.
    package func abandon(_ id: RecordingID) throws -> Bool {
        guard let lock else { return true }
        return try lock.hold {
            guard try read({ db in try RecordingRepository(db).recording(id) }) == nil else { return false }
            live.abandon(id)
            for file in live.files(of: id) { remove(file) }
            return true
        }
    }

    /// Takes `file`, a clip's media file no process holds (a crash's leftover a repair is about to
    /// register), for this process, as if it were writing it: every other process then leaves it
    /// alone. False when another process holds it already. Released by ``release(_:)``.
    package func claim(_ file: StoredFile) -> Bool {
        guard let files, let descriptor = try? files.open(file) else { return false }
        defer { try? descriptor.close() }
        return (try? live.hold(file, descriptor)) != nil
    }

    /// Whether clip `id` was given up while it was being written.
    package func isAbandoned(_ id: RecordingID) -> Bool {
        live.isAbandoned(id)
    }

    /// The clips of `files` some process is writing (or finishing for a repair): its files, and
    /// the clip's other files, are not to be touched by anyone else. Only files being written
    /// and media without a row (`rows`: the ids that have one) can be held, so only those are
    /// asked. A file that has gone since `files` was listed counts as held: its owner saved it
    /// under its clip's name, or removed it, in between (an import that ended while a repair
    /// looked at other clips was taken for one a crash cut off).
    package func clipsBeingWritten(_ files: [StoredFile], rows: Set<RecordingID>) -> Set<ClipFiles> {
        guard let library = self.files else { return [] }
        var clips: Set<ClipFiles> = []
        for file in files {
            guard let name = StoredName(file), name.marker == nil, name.part == .media,
                  name.isWriting || !rows.contains(name.clip.id),
                  library.isLocked(file) || library.status(of: file) == .missing else { continue }
            clips.insert(name.clip)
        }
        return clips
    }

    // MARK: - A clip's own files

    /// Opens a file of the library for reading (see ``FileStorageManager/open(_:)``).
    package func open(_ file: StoredFile) throws(CraveyError) -> FileDescriptor {
        guard let files else { throw CraveyError(.notFound, "There is no library at \(libraryURL.path).") }
        return try files.open(file)
    }

    /// `recording`'s media file, which must be there as a regular file: `.notFound` when it is
    /// missing, `.invalidInput` when a link or special file stands in its place. Always the
    /// clip's own name (``ClipFiles``), whatever its row's path says.
    package func mediaFile(of recording: Recording) throws(CraveyError) -> StoredFile {
        let media = ClipFiles(recording).media()
        switch status(of: media) {
        case .regular:
            return media
        case .missing:
            let place = files.map { $0.url(of: media).path } ?? media.path
            throw CraveyError(.notFound, "The file of \"\(recording.title)\" is missing: \(place).", advice: .checkLibrary)
        case .other(let kind):
            throw CraveyError(.invalidInput, "Refusing the file of \"\(recording.title)\": \(kind) stands where its media belongs (\(media.path)), and cravey never follows a link out of the library folder.",
                              advice: .repairLibrary)
        }
    }

    /// What is at `file`.
    package func status(of file: StoredFile) -> FileStorageManager.Status {
        files?.status(of: file) ?? .missing
    }

    /// The bytes of a stored file, read beneath its folder and never through a link or from a
    /// special file; nil when it is missing, cannot be read or holds more than `limit` bytes.
    package func contents(of file: StoredFile, atMost limit: Int) -> Data? {
        guard let descriptor = try? open(file) else { return nil }
        defer { try? descriptor.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            guard let count = try? buffer.withUnsafeMutableBytes({ try descriptor.read(into: $0) }) else { return nil }
            if count == 0 { return data }
            guard data.count + count <= limit else { return nil }
            data.append(contentsOf: buffer.prefix(count))
        }
    }

    /// Every regular file in `Recordings/` and `Thumbnails/` whose name is UTF-8, as paths
    /// relative to the library, sorted.
    package func storedFiles() -> [String] {
        [StoredFile.Folder.recordings, .thumbnails].flatMap { folder in
            (files?.entries(in: folder) ?? []).compactMap { $0.status.size == nil ? nil : $0.file(in: folder)?.path }
        }.sorted()
    }

    /// A clip's own copy of its row and plays, when it is there and is the clip's (its id and
    /// type).
    package func record(of clip: ClipFiles) -> ClipRecord? {
        guard let copy = clip.file(.copy), let data = contents(of: copy, atMost: 16 << 20),
              let record = ClipRecord(decoding: data),
              record.recording.id == clip.id, record.recording.type == clip.type else { return nil }
        return record
    }

    /// A clip's stored waveform; nil when there is none, or none that reads as one (cut short,
    /// a link, which is never followed): it is made again from the media then.
    package func waveform(of clip: ClipFiles) -> Waveform? {
        contents(of: clip.file(.waveform)!, atMost: Waveform.largestFile).flatMap(Waveform.init(audiowaveformData:))
    }

    /// Whether a clip has a waveform file that reads as one, judged from its header and size
    /// without reading it all (what `doctor` checks of every clip).
    package func holdsWaveform(of clip: ClipFiles) -> Bool {
        guard let descriptor = try? open(clip.file(.waveform)!) else { return false }
        defer { try? descriptor.close() }
        var info = stat()
        var header = Data(count: 24)
        guard fstat(descriptor.rawValue, &info) == 0,
              let count = try? header.withUnsafeMutableBytes({ try descriptor.read(into: $0) }) else { return false }
        return Waveform.isAudiowaveformHeader(header.prefix(count), ofFileSized: Int64(info.st_size))
    }
}
