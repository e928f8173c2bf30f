import Foundation

extension Recording {
    /// Encodes every JSON field, absent ones as `null`, the id in lowercase: `JSONEncoder` gets the
    /// shape ``RecordingJSON`` writes (which `--json` uses, faster). GRDB writes rows through
    /// `encode(to: inout PersistenceContainer)`, which adds the loudness columns.
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        for field in Self.fields { try field.encode(self, &container) }
    }

    /// A decoder for the JSON cravey prints and exports (ISO 8601 dates).
    public static func jsonDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
