import Foundation
import GRDB

/// A clip's id: a UUID, shown, stored and encoded in lower case, as the command line prints it
/// (`print(recording.id)` gives `3f2a61c0-...`, where a `UUID` would print upper case).
///
/// Parsed from either case; ``description`` is the lower-case form.
public struct RecordingID: Hashable, Sendable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// The UUID itself.
    public let uuid: UUID

    /// A new, random id.
    public init() {
        uuid = UUID()
    }

    public init(_ uuid: UUID) {
        self.uuid = uuid
    }

    /// The id written as a UUID's 36 characters, in either case; nil for anything else.
    public init?(_ description: String) {
        guard let uuid = Recording.uuid(description) else { return nil }
        self.uuid = uuid
    }

    /// The id in lower case, as the library stores it and the command line prints it.
    public var description: String { uuid.uuidString.lowercased() }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = RecordingID(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a recording id (a UUID)")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension RecordingID: DatabaseValueConvertible {
    /// Stored as the lower-case text the `recording` and `playEvent` tables hold.
    public var databaseValue: DatabaseValue { description.databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> RecordingID? {
        String.fromDatabaseValue(dbValue).flatMap(RecordingID.init)
    }
}
