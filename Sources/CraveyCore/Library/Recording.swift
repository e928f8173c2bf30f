import Foundation
import GRDB

/// What a recording holds: a microphone clip or a camera clip.
public enum RecordingType: String, Codable, Sendable, CaseIterable {
    case audio
    case video

    /// The file extension the library stores this type with.
    public var fileExtension: String { self == .audio ? "m4a" : "mp4" }
}

/// Why a person recorded a clip.
public enum RecordingPurpose: String, Codable, Sendable, CaseIterable {
    case motivational
    case craving
    case reflection
    case milestone
}

/// The orders `list` can show recordings in.
public enum RecordingSort: String, Sendable, CaseIterable {
    /// Newest first.
    case recent
    /// Most played first, ties broken by last played, then newest.
    case mostPlayed = "most-played"
    /// By title, case-insensitively.
    case title
}

/// One clip in the library: the row of the `recording` table.
public struct Recording: Codable, Sendable, Equatable, Identifiable {
    public var id: RecordingID
    public var type: RecordingType
    public var title: String
    public var notes: String?
    public var purpose: RecordingPurpose?
    public var createdAt: Date
    /// Seconds; exact for the library's own recordings (from the sample count at stop).
    public var duration: Double
    /// Relative to the library folder, for example `Recordings/audio_<UUID>.m4a`.
    public var filePath: String
    /// Relative to the library folder, under `Recordings/Thumbnails/`; video only.
    public var thumbnailPath: String?
    public var fileSize: Int64
    public var playCount: Int
    public var lastPlayedAt: Date?
    /// The Quick Play slot (1 to 3) the clip is pinned to, whatever its play count; nil when it
    /// is not pinned (``RecordingLibrary/pin(_:slot:)``).
    public var pinnedSlot: Int?
    /// The words a person tagged the clip with (`cravey tag`): lower case, sorted, each once
    /// (`ClipTags`). A record written before clips had tags reads as having none.
    public var tags: [String]
    /// The moments a person marked in the clip, in time order (``ClipMarker``); a trim moves
    /// them with the sound and drops the ones cut. A record written before clips had markers
    /// reads as having none.
    package var markers: [ClipMarker]
    /// How loud the clip is; nil until it has been measured (when saved or imported, by
    /// `doctor --repair`, or at its first play). Stored in the database only: the JSON that
    /// `--json` and the export print has no such field.
    package var loudness: LoudnessMeasurement? = nil

    /// The JSON fields, which are also the columns of the v1 table; ``loudness`` has columns of
    /// its own (``Columns/loudnessIntegrated``, ``Columns/loudnessTruePeak``).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, type, title, notes, purpose, createdAt, duration, filePath, thumbnailPath
        case fileSize, playCount, lastPlayedAt, pinnedSlot, tags, markers
    }

    package init(id: RecordingID = RecordingID(), type: RecordingType, title: String, notes: String? = nil,
                purpose: RecordingPurpose? = nil, createdAt: Date = Date(), duration: Double,
                filePath: String, thumbnailPath: String? = nil, fileSize: Int64,
                playCount: Int = 0, lastPlayedAt: Date? = nil, pinnedSlot: Int? = nil, tags: [String] = [],
                markers: [ClipMarker] = [],
                loudness: LoudnessMeasurement? = nil) {
        self.id = id
        self.type = type
        self.title = title
        self.notes = notes
        self.purpose = purpose
        self.createdAt = createdAt
        self.duration = duration
        self.filePath = filePath
        self.thumbnailPath = thumbnailPath
        self.fileSize = fileSize
        self.playCount = playCount
        self.lastPlayedAt = lastPlayedAt
        self.pinnedSlot = pinnedSlot
        self.tags = tags
        self.markers = markers
        self.loudness = loudness
    }
}

extension Recording: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "recording"

    public enum Columns {
        static let id = Column(CodingKeys.id)
        static let type = Column(CodingKeys.type)
        static let title = Column(CodingKeys.title)
        static let notes = Column(CodingKeys.notes)
        static let purpose = Column(CodingKeys.purpose)
        static let createdAt = Column(CodingKeys.createdAt)
        static let duration = Column(CodingKeys.duration)
        static let filePath = Column(CodingKeys.filePath)
        static let thumbnailPath = Column(CodingKeys.thumbnailPath)
        static let fileSize = Column(CodingKeys.fileSize)
        static let playCount = Column(CodingKeys.playCount)
        static let lastPlayedAt = Column(CodingKeys.lastPlayedAt)
        static let pinnedSlot = Column(CodingKeys.pinnedSlot)
        /// The tags as ``ClipTags/stored(_:)`` writes them: " calm sister ", or "" for none.
        static let tags = Column(CodingKeys.tags)
        /// The markers as ``ClipMarker/stored(_:)`` writes them: a line each, "" for none.
        static let markers = Column(CodingKeys.markers)
        /// Integrated loudness in LUFS (-Inf for a silent clip); NULL: not measured.
        static let loudnessIntegrated = Column("loudnessIntegrated")
        /// True peak in dBTP (-Inf for digital silence); NULL: not measured.
        static let loudnessTruePeak = Column("loudnessTruePeak")
    }

    /// Writes every column, the loudness ones included (which the `Encodable` shape, the JSON's,
    /// leaves out).
    public func encode(to container: inout PersistenceContainer) throws {
        for field in Self.fields { container[field.key.rawValue] = field.stored(self) }
        container[Columns.loudnessIntegrated] = loudness?.integrated
        container[Columns.loudnessTruePeak] = loudness?.truePeak
    }
}
