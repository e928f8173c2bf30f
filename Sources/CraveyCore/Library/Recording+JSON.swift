import Foundation

extension Recording {
    /// Encodes every JSON field, absent ones as `null`, the id in lowercase: `JSONEncoder` gets the
    /// shape ``RecordingJSON`` writes (which `--json` uses, faster). GRDB writes rows through
    /// `encode(to: inout PersistenceContainer)`, which adds the loudness columns.
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        for field in Self.fields { try field.encode(self, &container) }
    }

    /// Reads every field (``fields``): the ones every record has must be there; an optional one,
    /// or one added since the record was written (its tags), may be missing.
    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: RecordingID(), type: .audio, title: "", createdAt: Date(timeIntervalSince1970: 0), duration: 0,
                  filePath: "", fileSize: 0)
        for field in Self.fields { try field.decode(&self, container) }
    }

    /// A decoder for the JSON cravey prints and exports (ISO 8601 dates).
    public static func jsonDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
