import Foundation
import GRDB

extension Recording {
    /// One field of a recording, named once: its key (the JSON's and the column's name) and how
    /// its value is written as a stored value (the row), as JSON (``JSONBuffer``: `--json`, the
    /// export, the clip's own copy and a backup's record) and through an `Encoder`.
    struct Field: Sendable {
        let key: CodingKeys
        let stored: @Sendable (Recording) -> DatabaseValue
        let json: @Sendable (Recording, inout JSONBuffer) -> Void
        let encode: @Sendable (Recording, inout KeyedEncodingContainer<CodingKeys>) throws -> Void
        /// The field as a cell of the CSV export (an absent value: empty).
        let cell: @Sendable (Recording) -> String

        init<Value: Encodable & SendableMetatype>(_ key: CodingKeys, _ value: @escaping @Sendable (Recording) -> Value,
                               stored: @escaping @Sendable (Value) -> (any DatabaseValueConvertible)?,
                               json: @escaping @Sendable (Value, inout JSONBuffer) -> Void,
                               cell: (@Sendable (Value) -> String)? = nil) {
            self.key = key
            self.stored = { stored(value($0))?.databaseValue ?? .null }
            self.json = { json(value($0), &$1) }
            self.encode = { try $1.encode(value($0), forKey: key) }
            // By default the cell is the JSON's text without its quotes ("null": empty).
            if let cell {
                self.cell = { cell(value($0)) }
            } else {
                self.cell = { recording in
                    var out = JSONBuffer()
                    json(value(recording), &out)
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
        Field(.id, { $0.id }, stored: { $0.description }, json: { $1.uuid($0) }, cell: { $0.description }),
        Field(.type, { $0.type }, stored: { $0 }, json: { $1.string($0.rawValue) }, cell: { $0.rawValue }),
        Field(.title, { $0.title }, stored: { $0 }, json: { $1.string($0) }, cell: { $0 }),
        Field(.notes, { $0.notes }, stored: { $0 }, json: { $1.optional($0) { $0.string($1) } }, cell: { $0 ?? "" }),
        Field(.purpose, { $0.purpose }, stored: { $0 }, json: { $1.optional($0) { $0.string($1.rawValue) } },
              cell: { $0?.rawValue ?? "" }),
        Field(.createdAt, { $0.createdAt }, stored: { Recording.storedText($0) }, json: { $1.date($0) },
              cell: { JSONBuffer.text($0) }),
        Field(.duration, { $0.duration }, stored: { $0 }, json: { $1.append($0.isFinite ? "\($0)" : "0") }),
        Field(.filePath, { $0.filePath }, stored: { $0 }, json: { $1.string($0) }, cell: { $0 }),
        Field(.thumbnailPath, { $0.thumbnailPath }, stored: { $0 }, json: { $1.optional($0) { $0.string($1) } },
              cell: { $0 ?? "" }),
        Field(.fileSize, { $0.fileSize }, stored: { $0 }, json: { $1.append(String($0)) }),
        Field(.playCount, { $0.playCount }, stored: { $0 }, json: { $1.append(String($0)) }),
        Field(.lastPlayedAt, { $0.lastPlayedAt }, stored: { $0.map(Recording.storedText) },
              json: { $1.optional($0) { $0.date($1) } }, cell: { $0.map(JSONBuffer.text) ?? "" }),
        Field(.pinnedSlot, { $0.pinnedSlot }, stored: { $0 }, json: { $1.optional($0) { $0.append(String($1)) } }),
    ]

    /// The fields in the JSON's order: keys sorted.
    static let jsonFields = fields.sorted { $0.key.rawValue < $1.key.rawValue }
}
