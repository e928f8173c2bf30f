import Foundation
import GRDB

/// One play of a recording: when, how long it was listened to, and whether it reached the end.
public struct PlayEvent: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "playEvent"

    public var id: Int64?
    public var recordingId: UUID
    public var playedAt: Date
    public var secondsListened: Double
    public var completed: Bool

    package init(recordingId: UUID, playedAt: Date = Date(), secondsListened: Double, completed: Bool) {
        self.recordingId = recordingId
        self.playedAt = playedAt
        self.secondsListened = secondsListened
        self.completed = completed
    }

    public static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
        .lowercaseString
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    public enum Columns {
        static let recordingId = Column(CodingKeys.recordingId)
        static let playedAt = Column(CodingKeys.playedAt)
    }
}
