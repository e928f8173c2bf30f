import Foundation
import GRDB

extension Recording {
    /// One field of a recording, named once: its key (the JSON's and the column's name) and how
    /// its value is written as a stored value (the row), as a CSV cell, and through an
    /// `Encoder`, and read from a `Decoder` (the JSON read back: a clip's copy, a backup's
    /// record). Its JSON (`--json`, the export, the clip's own copy and a backup's record) is
    /// ``JSONBuffer/value(_:of:)``'s, a switch the compiler holds to every key: a writer
    /// called once per field per clip was 1.16x the time of `list --json`.
    final class Field: Sendable {
        let key: CodingKeys
        let stored: @Sendable (Recording) -> DatabaseValue
        let encode: @Sendable (Recording, inout KeyedEncodingContainer<CodingKeys>) throws -> Void
        /// The field as a cell of the CSV export (an absent value: empty).
        let cell: @Sendable (Recording) -> String
        /// Reads the field into a recording; a field a record may lack (an optional one, or one
        /// added since it was written) keeps the recording's value, the others must be there.
        let decode: @Sendable (inout Recording, KeyedDecodingContainer<CodingKeys>) throws -> Void

        init<Value: Codable & SendableMetatype>(_ key: CodingKeys, _ path: WritableKeyPath<Recording, Value> & Sendable,
                               stored: @escaping @Sendable (Value) -> (any DatabaseValueConvertible)?,
                               cell: (@Sendable (Value) -> String)? = nil, required: Bool = true) {
            let value: @Sendable (Recording) -> Value = { $0[keyPath: path] }
            self.key = key
            self.stored = { stored(value($0))?.databaseValue ?? .null }
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
                    out.value(key, of: recording)
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
        Field(.id, \.id, stored: { $0.description }, cell: { $0.description }),
        Field(.type, \.type, stored: { $0 }, cell: { $0.rawValue }),
        Field(.title, \.title, stored: { $0 }, cell: { $0 }),
        Field(.notes, \.notes, stored: { $0 }, cell: { $0 ?? "" }),
        Field(.purpose, \.purpose, stored: { $0 }, cell: { $0?.rawValue ?? "" }),
        Field(.createdAt, \.createdAt, stored: { Recording.storedText($0) }, cell: { JSONBuffer.text($0) }),
        Field(.duration, \.duration, stored: { $0 }),
        Field(.filePath, \.filePath, stored: { $0 }, cell: { $0 }),
        Field(.thumbnailPath, \.thumbnailPath, stored: { $0 }, cell: { $0 ?? "" }),
        Field(.fileSize, \.fileSize, stored: { $0 }),
        Field(.playCount, \.playCount, stored: { $0 }),
        Field(.lastPlayedAt, \.lastPlayedAt, stored: { $0.map(Recording.storedText) }, cell: { $0.map(JSONBuffer.text) ?? "" }),
        Field(.pinnedSlot, \.pinnedSlot, stored: { $0 }),
        Field(.tags, \.tags, stored: { ClipTags.stored($0) }, cell: { $0.joined(separator: " ") }, required: false),
        Field(.markers, \.markers, stored: { ClipMarker.stored($0) },
              cell: { ClipMarker.stored($0).replacingOccurrences(of: "\n", with: "; ") }, required: false),
    ]

    /// The keys in the JSON's order: sorted.
    static let jsonKeys = CodingKeys.allCases.sorted { $0.rawValue < $1.rawValue }
}

extension JSONBuffer {
    /// A recording's field as JSON: a new field's case here is the compiler's to ask for.
    mutating func value(_ key: Recording.CodingKeys, of r: Recording) {
        switch key {
        case .id: uuid(r.id)
        case .type: string(r.type.rawValue)
        case .title: string(r.title)
        case .notes: optional(r.notes) { $0.string($1) }
        case .purpose: optional(r.purpose) { $0.string($1.rawValue) }
        case .createdAt: date(r.createdAt)
        case .duration: if r.duration.isFinite { number(r.duration) } else { append("0") }
        case .filePath: string(r.filePath)
        case .thumbnailPath: optional(r.thumbnailPath) { $0.string($1) }
        case .fileSize: integer(r.fileSize)
        case .playCount: integer(r.playCount)
        case .lastPlayedAt: optional(r.lastPlayedAt) { $0.date($1) }
        case .pinnedSlot: optional(r.pinnedSlot) { $0.integer($1) }
        case .tags: strings(r.tags)
        case .markers: markers(r.markers)
        }
    }
}
