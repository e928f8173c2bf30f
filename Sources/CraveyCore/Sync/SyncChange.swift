import Foundation

/// One change a library made, as it travels in the sync folder: its id, its time, and what it
/// changed. A change file holds the changes of one of the library's transactions.
package struct SyncChange: Hashable, Sendable, Codable {
    /// Which change: the device that made it, the number of its change file (from 1), and its
    /// place in that file. A change read twice (a repeat, a Syncthing conflict copy) has one id.
    package struct ID: Hashable, Comparable, Sendable, Codable {
        package var device: SyncDevice
        package var file: UInt64
        package var index: UInt32

        package init(device: SyncDevice, file: UInt64, index: UInt32) {
            (self.device, self.file, self.index) = (device, file, index)
        }

        package static func < (a: ID, b: ID) -> Bool {
            a.device != b.device ? a.device < b.device : (a.file, a.index) < (b.file, b.index)
        }
    }

    /// A field of a clip that takes the change made last.
    package enum Field: String, Hashable, Sendable, Codable, CaseIterable {
        case title, notes, purpose
    }

    /// A clip's media as the folder holds it: a blob (`devices/DEVICE/media/BLOB.age`) of the
    /// device that wrote it, with its size and SHA-256 to check it once it has arrived.
    package struct Blob: Hashable, Sendable, Codable {
        package var device: SyncDevice
        package var id: UUID
        package var size: Int64
        package var sha256: String

        package init(device: SyncDevice, id: UUID, size: Int64, sha256: String) {
            (self.device, self.id, self.size, self.sha256) = (device, id, size, sha256)
        }
    }

    /// What a clip's sound (or picture) is: its media and what is made from it. A trim or a
    /// clean-up makes new media, which replaces the old on every machine, plays kept.
    package struct Media: Hashable, Sendable, Codable {
        package var file: Blob
        package var thumbnail: Blob?
        package var waveform: Blob?
        package var duration: Double
        package var loudness: LoudnessMeasurement?

        package init(file: Blob, thumbnail: Blob? = nil, waveform: Blob? = nil, duration: Double, loudness: LoudnessMeasurement? = nil) {
            (self.file, self.thumbnail, self.waveform, self.duration, self.loudness) = (file, thumbnail, waveform, duration, loudness)
        }
    }

    /// What a change does.
    package enum Kind: Hashable, Sendable, Codable {
        /// A clip is made: its type, the date it was made, its first media.
        case clip(type: RecordingType, createdAt: Date, media: Media)
        /// A field is set (nil: emptied).
        case field(Field, String?)
        /// Its words are set (a transcript's JSON), or removed (nil).
        case words(Data?)
        /// It was played: each play once, by its id, wherever it is merged.
        case play(id: UUID, at: Date, completed: Bool)
        /// A tag is added; each add has an id of its own.
        case tagAdded(String, add: UUID)
        /// A tag is removed: the adds of it the device had seen. An add it had not seen stays.
        case tagRemoved(String, adds: Set<UUID>)
        /// A marker is added, by an id of its own.
        case markerAdded(id: UUID, milliseconds: Int64, label: String?)
        /// A marker is removed, by its id.
        case markerRemoved(id: UUID)
        /// New media (a trim, a clean-up).
        case media(Media)
        /// The clip is deleted, everywhere, for good.
        case delete
        /// A Quick Play slot (1-3) is given a clip, or emptied (nil): the change made last wins.
        case pin(slot: Int, clip: RecordingID?)
    }

    package var id: ID
    package var time: SyncTime
    /// The clip it changes (none for a pin: the slot is the library's).
    package var clip: RecordingID?
    package var kind: Kind

    package init(id: ID, time: SyncTime, clip: RecordingID?, kind: Kind) {
        (self.id, self.time, self.clip, self.kind) = (id, time, clip, kind)
    }

    /// How changes are written, in the outbox and the folder: a silent clip's loudness is minus
    /// infinity, which plain JSON has no number for.
    package static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    /// How changes are read back (``encoder``'s counterpart).
    package static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }
}
