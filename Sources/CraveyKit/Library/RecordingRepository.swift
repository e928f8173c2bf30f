import Foundation
import GRDB

/// The orders `list` can show recordings in.
public enum RecordingSort: String, Sendable, CaseIterable {
    /// Newest first.
    case recent
    /// Most played first, ties broken by last played, then newest.
    case mostPlayed = "most-played"
    /// By title, case-insensitively.
    case title
}

/// Reads and writes recording rows. Every write is one transaction; several processes may use
/// the same library at once.
public struct RecordingRepository: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public func insert(_ recording: Recording) throws {
        try database.writer.write { db in try recording.insert(db) }
    }

    public func fetchAll(sortedBy sort: RecordingSort = .recent) throws -> [Recording] {
        try database.writer.read { db in
            try Recording.all().order(sort.ordering).fetchAll(db)
        }
    }

    public func fetch(id: UUID) throws -> Recording? {
        try database.writer.read { db in try Recording.fetchOne(db, key: id) }
    }

    public func count() throws -> Int {
        try database.writer.read { db in try Recording.fetchCount(db) }
    }
}

extension RecordingSort {
    var ordering: [any SQLOrderingTerm] {
        typealias Columns = Recording.Columns
        switch self {
        case .recent:
            return [Columns.createdAt.desc]
        case .mostPlayed:
            return [Columns.playCount.desc, Columns.lastPlayedAt.desc, Columns.createdAt.desc]
        case .title:
            return [Columns.title.collating(.localizedCaseInsensitiveCompare), Columns.createdAt.desc]
        }
    }
}
