import Foundation
import GRDB

extension Recording {
    /// One field of a recording, named once: its key (the JSON's and the column's name) and how
    /// its value is written as a stored value (the row), as JSON (``JSONBuffer``: `--json`, the
    /// export, the clip's own copy and a backup's record), as a CSV cell, and through an
    /// `Encoder`, and read from a `Decoder` (the JSON read back: a clip's copy, a backup's record).
    final class Field: Sendable {
        let key: CodingKeys
        /// `"key" : ` as the JSON writer writes it before the value, made once.
        let jsonKey: [UInt8]
        let stored: @Sendable (Recording) -> DatabaseValue
        let json: @Sendable (Recording, inout JSONBuffer) -> Void
        let encode: @Sendable (Recording, inout KeyedEncodingContainer<CodingKeys>) throws -> Void
        /// The field as a cell of the CSV export (an absent value: empty).
        let cell: @Sendable (Recording) -> String
        /// Reads the field into a recording; a field a record may lack (an optional one, or one
        /// added since it was written) keeps the recording's value, the others must be there.
        let decode: @Sendable (inout Recording, KeyedDecodingContainer<CodingKeys>) throws -> Void

        init<Value: Codable & SendableMetatype>(_ key: CodingKeys, _ path: WritableKeyPath<Recording, Value> & Sendable,
                               stored: @escaping @Sendable (Value) -> (any DatabaseValueConvertible)?,
                               json: @escaping @Sendable (Recording, inout JSONBuffer) -> Void,
                               cell: (@Sendable (Value) -> String)? = nil, required: Bool = true) {
            let value: @Sendable (Recording) -> Value = { $0[keyPath: path] }
            self.key = key
            jsonKey = Array("\"\(key.rawValue)\" : ".utf8)
            self.stored = { stored(value($0))?.databaseValue ?? .null }
            // Read directly, not through the key path: `--json` writes 100,000 rows of these.
            self.json = json
            self.encode = { try $1.encode(value($0), forKey: key) }
            // By default the cell is the JSON's text without its quotes ("null": empty).
            let required = required && !(Value.self is any ExpressibleByNilLiteral.Type)
            self.decode = { recording, container in
                if let read = try container.decodeIfPresent(Value.self, forKey: key) {
                    recording[keyPath: path] = read
                } else if required {
                    recording[keyPath: path] = try container.decode(Value.self, forKey: key)  // throws what is missing
                }
            }
            if let cell {
                self.cell = { cell(value($0)) }
            } else {
                self.cell = { recording in
                    var out = JSONBuffer()
                    json(recording, &out)
                    let text = String(decoding: out.bytes, as: UTF8.self)
                    return text == "null" ? "" : text
                }
            }
        }
    }

    /// Every field, in the columns' order (``databaseSelection`` and ``init(row:)`` read them by
    /// index in this order). A new field is a stored property, a coding key, an entry here, its
    /// read in ``init(row:)`` and the migration that adds its column (docs/clip-parts.md).
    static let fields: [Field] = [
        Field(.id, \.id, stored: { $0.description }, json: { $1.uuid($0.id) }, cell: { $0.description }),
        Field(.type, \.type, stored: { $0 }, json: { $1.string($0.type.rawValue) }, cell: { $0.rawValue }),
        Field(.title, \.title, stored: { $0 }, json: { $1.string($0.title) }, cell: { $0 }),
        Field(.notes, \.notes, stored: { $0 }, json: { $1.optional($0.notes) { $0.string($1) } }, cell: { $0 ?? "" }),
        Field(.purpose, \.purpose, stored: { $0 }, json: { $1.optional($0.purpose) { $0.string($1.rawValue) } },
              cell: { $0?.rawValue ?? "" }),
        Field(.createdAt, \.createdAt, stored: { Recording.storedText($0) }, json: { $1.date($0.createdAt) },
              cell: { JSONBuffer.text($0) }),
        Field(.duration, \.duration, stored: { $0 }, json: { $1.append($0.duration.isFinite ? "\($0.duration)" : "0") }),
        Field(.filePath, \.filePath, stored: { $0 }, json: { $1.string($0.filePath) }, cell: { $0 }),
        Field(.thumbnailPath, \.thumbnailPath, stored: { $0 }, json: { $1.optional($0.thumbnailPath) { $0.string($1) } },
              cell: { $0 ?? "" }),
        Field(.fileSize, \.fileSize, stored: { $0 }, json: { $1.append(String($0.fileSize)) }),
        Field(.playCount, \.playCount, stored: { $0 }, json: { $1.append(String($0.playCount)) }),
        Field(.lastPlayedAt, \.lastPlayedAt, stored: { $0.map(Recording.storedText) },
              json: { $1.optional($0.lastPlayedAt) { $0.date($1) } }, cell: { $0.map(JSONBuffer.text) ?? "" }),
        Field(.pinnedSlot, \.pinnedSlot, stored: { $0 }, json: { $1.optional($0.pinnedSlot) { $0.append(String($1)) } }),
        Field(.tags, \.tags, stored: { ClipTags.stored($0) }, json: { $1.strings($0.tags) }, cell: { $0.joined(separator: " ") },
              required: false),
        Field(.markers, \.markers, stored: { ClipMarker.stored($0) }, json: { $1.markers($0.markers) },
              cell: { ClipMarker.stored($0).replacingOccurrences(of: "\n", with: "; ") }, required: false),
    ]

    /// The fields in the JSON's order: keys sorted.
    static let jsonFields = fields.sorted { $0.key.rawValue < $1.key.rawValue }
}
