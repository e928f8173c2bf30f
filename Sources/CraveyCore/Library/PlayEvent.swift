import Foundation
import GRDB

/// One play of a recording: when, how long it was listened to, and whether it reached the end.
public struct PlayEvent: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "playEvent"

    public var id: Int64?
    public var recordingId: RecordingID
    public var playedAt: Date
    public var secondsListened: Double
    public var completed: Bool

    package init(recordingId: RecordingID, playedAt: Date = Date(), secondsListened: Double, completed: Bool) {
        self.recordingId = recordingId
        self.playedAt = playedAt
        self.secondsListened = secondsListened
        self.completed = completed
    }


    /// Writes the row, its date as the library stores dates (``Recording/storedText(_:)``).
    public func encode(to container: inout PersistenceContainer) throws {
        container[Column(CodingKeys.id)] = id
        container[Column(CodingKeys.recordingId)] = recordingId.description
        container[Column(CodingKeys.playedAt)] = Recording.storedText(playedAt)
        container[Column(CodingKeys.secondsListened)] = secondsListened
        container[Column(CodingKeys.completed)] = completed
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    public enum Columns {
        static let recordingId = Column(CodingKeys.recordingId)
        static let playedAt = Column(CodingKeys.playedAt)
    }
}
