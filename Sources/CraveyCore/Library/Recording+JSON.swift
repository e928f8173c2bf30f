import Foundation

extension Recording {
    /// Encodes every JSON field, absent ones as `null`, the id in lowercase: `JSONEncoder` gets the
    /// shape ``RecordingJSON`` writes (which `--json` uses, faster). GRDB writes rows through
    /// `encode(to: inout PersistenceContainer)`, which adds the loudness columns.
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.description, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(title, forKey: .title)
        try container.encode(notes, forKey: .notes)
        try container.encode(purpose, forKey: .purpose)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(duration, forKey: .duration)
        try container.encode(filePath, forKey: .filePath)
        try container.encode(thumbnailPath, forKey: .thumbnailPath)
        try container.encode(fileSize, forKey: .fileSize)
        try container.encode(playCount, forKey: .playCount)
        try container.encode(lastPlayedAt, forKey: .lastPlayedAt)
    }

    /// A decoder for the JSON cravey prints and exports (ISO 8601 dates).
    public static func jsonDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
