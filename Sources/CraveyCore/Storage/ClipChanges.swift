import Foundation
import GRDB

/// Which clips a transaction changes: the rowids of the recordings it inserts or updates, and of
/// the plays it inserts, as SQLite reports them. ``LibraryStore/write(_:)`` reads them before the
/// commit and writes those clips' own copies, so no change of a clip commits without its copy
/// (GRDB's `TransactionObserver`, on the writing connection).
///
/// Deletions are not observed: a deleted clip's copy goes with its other files, and observing
/// them would cost `delete-all` SQLite's truncate optimisation.
// @unchecked Sendable: `changed` is behind a `Locked`; GRDB calls the observer on the writing
// connection's queue.
final class ClipChanges: TransactionObserver, @unchecked Sendable {
    private let changed = Locked<(recordings: Set<Int64>, plays: Set<Int64>)>(([], []))

    /// Forgets what an earlier transaction changed.
    func begin() {
        changed.withLock { $0 = ([], []) }
    }

    /// The rowids of the recordings and plays changed since ``begin()``.
    func rowIDs() -> (recordings: Set<Int64>, plays: Set<Int64>) {
        changed.withLock { $0 }
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        switch eventKind {
        case .insert(let table): table == Recording.databaseTableName || table == PlayEvent.databaseTableName
        case .update(let table, _): table == Recording.databaseTableName
        case .delete: false
        }
    }

    /// Each row a statement observed changed, by its table: the rows its triggers change come
    /// too (the word index's, whose own rows, numbered from 1, are not clips), and are left out.
    func databaseDidChange(with event: DatabaseEvent) {
        let rowID = event.rowID
        switch event.tableName {
        case PlayEvent.databaseTableName: _ = changed.withLock { $0.plays.insert(rowID) }
        case Recording.databaseTableName: _ = changed.withLock { $0.recordings.insert(rowID) }
        default: break
        }
    }

    func databaseDidCommit(_ db: Database) {}
    func databaseDidRollback(_ db: Database) {}
}
