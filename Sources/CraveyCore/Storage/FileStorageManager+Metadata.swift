import Foundation
import SystemPackage

extension FileStorageManager {
    /// Where a clip keeps its own copy of its words and history: `Recordings/<type>_<uuid>.json`,
    /// beside its media.
    ///
    /// The database is the library's truth; this copy is what a repair registers a clip with
    /// when the database is lost or damaged (moved aside), so that no title, note, purpose,
    /// creation date, play or loudness is lost with it. It is written, durably, inside every
    /// transaction that changes the clip, before the commit (``keep(_:plays:)``), and deleted with
    /// the clip.
    package static func metadataPath(for id: UUID, type: RecordingType) -> String {
        "\(recordingsFolder)/\(type.rawValue)_\(id.uuidString.lowercased()).json"
    }

    /// Writes a clip's copy of its row and plays, atomically and durably.
    package func keep(_ recording: Recording, plays: [PlayEvent]) throws {
        let copy = StoredClip(recording: recording, loudness: recording.loudness, plays: plays)
        try writeAtomically(try StoredClip.encoder.encode(copy), to: Self.metadataPath(for: recording.id, type: recording.type),
                            doing: "keep the words of the clip in")
    }

    /// A clip's copy of its row and plays, when it is there and is the clip's (its id and type).
    package func storedClip(_ id: UUID, type: RecordingType) -> (recording: Recording, plays: [PlayEvent])? {
        guard let data = contents(of: url(of: Self.metadataPath(for: id, type: type)), atMost: 16 << 20),
              var copy = try? StoredClip.decoder.decode(StoredClip.self, from: data),
              copy.recording.id == id, copy.recording.type == type else { return nil }
        copy.recording.loudness = copy.loudness
        return (copy.recording, copy.plays)
    }

    /// Writes the copy of every clip that has none (a library made before clips kept one):
    /// once, when the database is brought up to date, flushed with one `sync` at the end.
    func keepMissingCopies() throws {
        for recording in try repository.fetchAll() where size(of: url(of: Self.metadataPath(for: recording.id, type: recording.type))) == nil {
            let copy = StoredClip(recording: recording, loudness: recording.loudness, plays: try repository.playEvents(of: recording.id))
            try writeAtomically(try StoredClip.encoder.encode(copy), to: Self.metadataPath(for: recording.id, type: recording.type),
                                doing: "keep the words of the clip in", syncing: false)
        }
        sync()  // all of them on the disk at once (Glibc hides syncfs, which would do one file system)
    }
}

/// What a clip's own copy holds, and a backup's record of it: its row (the JSON fields of
/// `--json`), its loudness and its plays.
struct StoredClip: Codable {
    var version = 1
    var recording: Recording
    var loudness: LoudnessMeasurement?
    var plays: [PlayEvent]

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }()
}
