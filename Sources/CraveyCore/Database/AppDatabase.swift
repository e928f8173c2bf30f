import Foundation
import GRDB
import SystemPackage
import GRDBSQLite

/// The library's SQLite database: a WAL-mode pool shared safely by several `cravey` processes.
///
/// It records which program wrote its schema (the migrations GRDB applied, and `libraryInfo`'s
/// `writtenBy`): one written by a newer cravey is opened read-only, every write is refused with
/// `.newerLibrary`, and a read this program cannot do correctly says so the same way.
package struct AppDatabase: Sendable {
    /// The file name beside `Recordings/` in the library folder.
    package static let fileName = "library.sqlite"

    private let writer: any DatabaseWriter
    /// The database cannot be written (a read-only mount, a folder set to 0500).
    let isReadOnly: Bool
    /// Set when a newer cravey wrote the schema: why every write is refused.
    let newer: CraveyError?

    /// Opens (creating with mode 0600) the database at `url`; ``migrate()`` brings its tables up
    /// to date. Where the file or its folder cannot be written it opens read-only: reading works,
    /// and every write fails with `SQLITE_READONLY`.
    init(url: URL) throws {
        var readOnly = try Self.createPrivately(url)
        var pool = try DatabasePool(path: url.path, configuration: Self.configuration(readOnly: readOnly))
        newer = try pool.read { db in try Self.newerSchema(db, at: url) }
        if newer != nil, !readOnly {
            // Opened again so that SQLite itself refuses any write.
            readOnly = true
            pool = try DatabasePool(path: url.path, configuration: Self.configuration(readOnly: true))
        }
        if !readOnly {
            // A commit returns once it is on the disk (the write-ahead log fsynced): a clip, an
            // edit or a play the command said it saved survives a power cut that follows. Set on
            // the pool's one writing connection once it is open: GRDB sets NORMAL when it turns
            // WAL mode on, after any `prepareDatabase`.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        }
        writer = pool
        isReadOnly = readOnly
        if readOnly, newer == nil, try needsMigration() {
            throw CraveyError(.cannotWrite, "The library database \(url.path) is read-only and was made by an older cravey; it needs updating once, where it can be written.")
        }
    }

    /// An empty database in memory, with this program's tables: a library that is not there yet,
    /// read by a command that creates nothing.
    init() throws {
        writer = try DatabaseQueue()
        isReadOnly = false
        newer = nil
        try migrate()
    }

    private static func configuration(readOnly: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readOnly
        // A writer waits for the others as the writers' lock does: a long queue of plays counted
        // by several processes at once (each commit flushed to the disk) must not fail.
        configuration.busyMode = .timeout(600)
        configuration.prepareDatabase { db in
            // Deleted titles and notes must not linger in free pages of the file.
            try db.execute(sql: "PRAGMA secure_delete = ON")
            // SQLite's temporary files (a sort, a search's matches held for their snippets) stay
            // in memory: by default they are written to /var/tmp, and a clip's words would be
            // on the disk outside the library.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // Keep the -wal file when the last connection closes. Otherwise every `cravey list`
            // rewrote the database on open and checkpointed it on close: a write and four
            // fsyncs for a command that only reads.
            var persist: CInt = 1
            let code = sqlite3_file_control(db.sqliteConnection, nil, SQLITE_FCNTL_PERSIST_WAL, &persist)
            guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
        }
        return configuration
    }

    /// Why this program must not write the database: a migration it does not know was applied,
    /// so a newer cravey wrote it. Nil when it may. The corresponding GRDB call is
    /// `DatabaseMigrator.hasBeenSuperseded`.
    private static func newerSchema(_ db: Database, at url: URL) throws -> CraveyError? {
        guard try migrator.hasBeenSuperseded(db) else { return nil }
        let writtenBy = try? String.fetchOne(db, sql: "SELECT value FROM libraryInfo WHERE key = 'writtenBy'")
        let who = writtenBy.map { "cravey \($0)" } ?? "a newer cravey"
        return CraveyError(.newerLibrary, "The library database \(url.path) was written by \(who), newer than this cravey (\(RecordingLibrary.programVersion)): its clips can be listed and played here, but nothing in it can be changed.",
                           advice: .upgrade)
    }

    /// Runs a write transaction; refused (`.newerLibrary`) when a newer cravey wrote the schema.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        if let newer { throw newer }
        return try writer.write(body)
    }

    /// Has `observer` told of every transaction of the writing connection, for as long as it
    /// lives. The corresponding GRDB call is `DatabaseWriter.add(transactionObserver:extent:)`.
    func observe(_ observer: some TransactionObserver) {
        writer.add(transactionObserver: observer, extent: .observerLifetime)
    }

    /// Reads in a consistent snapshot. A read that fails on a schema a newer cravey wrote says
    /// that, not the SQL error.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try writer.read(body)
        } catch let error as DatabaseError where newer != nil {
            var refusal = newer!
            refusal.message = "Cannot read this library (\(error.message ?? "\(error.resultCode)")): " + refusal.message
            throw refusal
        }
    }

    /// What SQLite finds wrong with the database file (its b-trees, pages, indexes), one line
    /// each; empty when it is sound. The corresponding SQLite call is `PRAGMA integrity_check`.
    func integrityProblems() throws -> [String] {
        let lines = try writer.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check(20)") }
        return lines == ["ok"] ? [] : lines
    }

    /// Whether tables are missing or older than this program's.
    func needsMigration() throws -> Bool {
        try !writer.read(Self.migrator.hasCompletedMigrations)
    }

    /// Creates or updates the tables. The corresponding GRDB call is `DatabaseMigrator.migrate`.
    func migrate() throws {
        try Self.migrator.migrate(writer)
        try writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO libraryInfo (key, value) VALUES ('writtenBy', ?)",
                           arguments: [RecordingLibrary.programVersion])
        }
    }

    /// Creates the file with mode 0600 when it is missing (SQLite gives the -wal and -shm files
    /// the mode of the database file, so all three are private) and never changes the mode of
    /// one that exists. Returns whether it can only be read.
    private static func createPrivately(_ url: URL) throws -> Bool {
        try refuseLinks(url)
        let descriptor = open(url.path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            // A write-ahead log left by a database moved aside (damaged) belongs to that one:
            // SQLite would replay it into this new file. It is moved aside too, not deleted.
            for suffix in ["-wal", "-shm"] where access(url.path + suffix, F_OK) == 0 {
                rename(url.path + suffix, url.path + suffix + ".stale-\(Int(Date().timeIntervalSince1970))")
            }
            // Its name on the disk too, before anything is committed into it.
            let folder = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folder >= 0 {
                fsync(folder)
                close(folder)
            }
            return false
        }
        let code = Errno(rawValue: errno)
        guard code == .fileExists || access(url.path, F_OK) == 0 else {
            throw CraveyError(.cannotWrite, "Cannot create the library database \(url.path): \(code). Check that the folder is writable.", underlying: code)
        }
        return access(url.path, W_OK) != 0 || access(url.deletingLastPathComponent().path, W_OK) != 0
    }

    /// Refuses a database, -wal or -shm file that is a symbolic link (or not a regular file):
    /// SQLite opens them by path and would follow the link out of the library folder. The
    /// corresponding C function is `lstat`.
    private static func refuseLinks(_ url: URL) throws {
        for path in ["", "-wal", "-shm"].map({ url.path + $0 }) {
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }  // Missing: SQLite creates it, privately.
            guard info.st_mode & S_IFMT != S_IFREG else { continue }
            let what = info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a regular file"
            throw CraveyError(.cannotWrite, "Refusing to use the library: \(path) is \(what), and cravey never follows a link out of the library folder.",
                              advice: .replaceDatabaseLink(path))
        }
    }

    /// Moves the write-ahead log into the database file and truncates it, so nothing deleted
    /// lingers in the -wal file. The corresponding SQLite call is `PRAGMA wal_checkpoint(TRUNCATE)`.
    func checkpoint() throws {
        if let newer { throw newer }
        try writer.writeWithoutTransaction { db in
            _ = try db.checkpoint(.truncate)
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "recording") { t in
                t.primaryKey("id", .text)
                t.column("type", .text).notNull().check { ["audio", "video"].contains($0) }
                t.column("title", .text).notNull()
                t.column("notes", .text)
                t.column("purpose", .text)
                    .check { $0 == nil || ["motivational", "craving", "reflection", "milestone"].contains($0) }
                t.column("createdAt", .datetime).notNull()
                t.column("duration", .double).notNull()
                t.column("filePath", .text).notNull().unique()
                t.column("thumbnailPath", .text)
                t.column("fileSize", .integer).notNull()
                t.column("playCount", .integer).notNull().defaults(to: 0)
                t.column("lastPlayedAt", .datetime)
            }
            // One index for each sort the CLI offers; Quick Play reads the first rows of the second.
            try db.create(index: "recording_on_createdAt", on: "recording", columns: ["createdAt"])
            try db.create(index: "recording_on_plays", on: "recording",
                          columns: ["playCount", "lastPlayedAt", "createdAt"])
            try db.create(index: "recording_on_title", on: "recording", columns: ["title"])

            try db.create(table: "playEvent") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("recording", onDelete: .cascade).notNull()
                t.column("playedAt", .datetime).notNull()
                t.column("secondsListened", .double).notNull()
                t.column("completed", .boolean).notNull()
            }
        }
        // A clip's loudness (see LoudnessMeasurement): NULL until measured, so existing rows keep
        // their data and get a measurement from `doctor --repair` or their first play.
        migrator.registerMigration("loudness") { db in
            try db.alter(table: "recording") { t in
                t.add(column: "loudnessIntegrated", .double)
                t.add(column: "loudnessTruePeak", .double)
            }
        }
        // Which program wrote the schema, for a later, older one to say so (``newerSchema``);
        // and SQLite's application id, 'CRVY', marking the file as a cravey library.
        migrator.registerMigration("libraryInfo") { db in
            try db.create(table: "libraryInfo") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
            try db.execute(sql: "PRAGMA application_id = 1129469529")
            // This database's identity: a delete-all's journal names it, and applies only to it.
            try db.execute(sql: "INSERT INTO libraryInfo (key, value) VALUES ('libraryID', lower(hex(randomblob(16))))")
        }
        // The Quick Play slot a clip is pinned to (1 to 3), NULL when it is not; each slot holds
        // at most one clip.
        migrator.registerMigration("pins") { db in
            try db.alter(table: "recording") { t in
                t.add(column: "pinnedSlot", .integer).check { $0 == nil || [1, 2, 3].contains($0) }
            }
            try db.execute(sql: "CREATE UNIQUE INDEX recording_on_pinnedSlot ON recording(pinnedSlot) WHERE pinnedSlot IS NOT NULL")
        }
        // A clip's tags, as ``ClipTags/stored(_:)`` writes them: " calm sister ", "" for none.
        migrator.registerMigration("tags") { db in
            try db.alter(table: "recording") { t in
                t.add(column: "tags", .text).notNull().defaults(to: "")
            }
        }
        // A clip's markers, as ``ClipMarker/stored(_:)`` writes them: "12.345 chorus" a line, ""
        // for none.
        migrator.registerMigration("markers") { db in
            try db.alter(table: "recording") { t in
                t.add(column: "markers", .text).notNull().defaults(to: "")
            }
        }
        // The word index (``ClipSearch``) over titles, notes and transcripts, filled from the
        // rows here; the transcripts' words are added by ``LibraryStore`` once migrated.
        migrator.registerMigration("search") { db in
            try ClipSearch.create(db)
        }
        // Reminders to listen (``Reminder``, ``LibraryReminders``): a time, days, a clip or
        // Quick Play's first, a pause.
        migrator.registerMigration("reminders") { db in
            try Reminder.create(db)
        }
        // A person's own words and the forms each is heard as, one a line (``LibraryVocabulary``).
        migrator.registerMigration("vocabulary") { db in
            try db.create(table: "vocabulary") { t in
                t.primaryKey("word", .text).collate(.nocase)
                t.column("heardAs", .text).notNull().defaults(to: "")
            }
        }
        // What sync keeps (``SyncLog``, docs/sync.md): empty tables and a NULL column until the
        // library joins a sync folder.
        migrator.registerMigration("sync") { db in
            try SyncLog.create(db)
        }
        // The files left in the sync folder's inbox/ that are not media cravey imports, and why
        // (``SyncInbox``, `cravey sync --status`): not tried again while they stay as they are.
        migrator.registerMigration("syncInbox") { db in
            try db.execute(sql: """
                CREATE TABLE syncInbox (name TEXT PRIMARY KEY, size INTEGER NOT NULL, modified DOUBLE NOT NULL,
                                        reason TEXT NOT NULL) WITHOUT ROWID
                """)
        }
        // The blobs told of each clip, so that the device that wrote a deleted clip's takes
        // them out of the sync folder (``SyncBlobs``).
        migrator.registerMigration("syncBlobs") { db in
            try SyncBlobs.create(db)
        }
        return migrator
    }
}
