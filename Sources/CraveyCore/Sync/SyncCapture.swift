import Foundation
import GRDB
import SystemPackage

/// What a transaction of the library did, as sync changes (docs/sync.md): each clip it changed
/// compared with what the folder was last told of it (``SyncLog``), in the transaction, before
/// its commit (``StoreTransaction``). A clip the folder was told nothing of (saved, restored,
/// or there before the library joined) is told whole: its `clip` change, then its fields, tags,
/// markers, words and plays, the tag adds, markers and plays a folder was told before (the
/// library left it and joins again) by the ids they had. So no command changes for sync:
/// whatever changes a clip's row is sent by that.
struct SyncCapture {
    let db: Database
    let store: LibraryStore
    /// The device the changes are made on (their blobs are its).
    let device: SyncDevice

    typealias Change = (clip: RecordingID?, kind: SyncChange.Kind)

    /// What changed of `recording` since the folder was last told of it. `replacedMedia`: its
    /// media was replaced in the transaction (a trim, a clean-up); `words`: its words, when the
    /// transaction stored (or removed, nil) them.
    func changes(of recording: Recording, replacedMedia: Bool, words: Data??) throws -> [Change] {
        let log = SyncLog(db), id = recording.id
        var changes: [Change] = []
        let media = try log.media(of: id)
        let whole = media == nil
        if let media {
            if replacedMedia || media.file.size != recording.fileSize {
                changes.append((id, .media(try self.media(of: recording))))
            } else if media.duration != recording.duration || media.loudness != recording.loudness {
                var measured = media
                (measured.duration, measured.loudness) = (recording.duration, recording.loudness)
                changes.append((id, .media(measured)))
            }
        } else {
            changes.append((id, .clip(type: recording.type, createdAt: recording.createdAt, media: try self.media(of: recording))))
        }
        let told = try log.values(of: id.description)
        for field in SyncChange.Field.allCases {
            let value = switch field {
            case .title: Optional(recording.title)
            case .notes: recording.notes
            case .purpose: recording.purpose?.rawValue
            }
            let was = told[field.rawValue]
            if was == nil ? value != nil : was! != value { changes.append((id, .field(field, value))) }
        }
        let adds = try log.tagAdds(of: id)
        for (tag, ids) in adds.sorted(by: { $0.key < $1.key }) where !recording.tags.contains(tag) {
            changes.append((id, .tagRemoved(tag, adds: ids)))
        }
        for tag in recording.tags {
            if let told = adds[tag] {
                if whole { changes += told.sorted { $0.uuidString < $1.uuidString }.map { (id, .tagAdded(tag, add: $0)) } }
            } else {
                changes.append((id, .tagAdded(tag, add: UUID())))
            }
        }
        let markers = try log.markers(of: id)
        for (markerID, marker) in markers where !recording.markers.contains(marker) { changes.append((id, .markerRemoved(id: markerID))) }
        for marker in recording.markers {
            if let told = markers.first(where: { $0.marker == marker }) {
                if whole { changes.append((id, .markerAdded(id: told.id, milliseconds: marker.milliseconds, label: marker.label))) }
            } else {
                changes.append((id, .markerAdded(id: UUID(), milliseconds: marker.milliseconds, label: marker.label)))
            }
        }
        if let words {
            changes.append((id, .words(words)))
        } else if whole, let file = ClipFiles(recording).file(.transcript), store.status(of: file).size != nil {
            changes.append((id, .words(store.contents(of: file, atMost: Transcript.largestFile))))
        }
        for (playID, play) in try log.plays(of: id, told: whole) {
            changes.append((id, .play(id: playID, at: play.playedAt, completed: play.completed)))
        }
        return changes
    }

    /// The Quick Play slots whose clip is not the one the folder was last told of.
    func pins() throws -> [Change] {
        let told = try SyncLog(db).values(of: SyncLog.quickPlay)
        var holders: [Int: String] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT pinnedSlot, id FROM recording WHERE pinnedSlot IS NOT NULL")) {
            holders[row["pinnedSlot"]] = row["id"]
        }
        var changes: [Change] = []
        for slot in 1...RecordingRepository.quickPlayCount {
            let holder = holders[slot], was = told["slot\(slot)"]
            if was == nil ? holder != nil : was! != holder { changes.append((nil, .pin(slot: slot, clip: holder.flatMap(RecordingID.init)))) }
        }
        return changes
    }

    /// `recording`'s media as the folder is to hold it: new blobs of its media, thumbnail and
    /// waveform, measured now.
    private func media(of recording: Recording) throws -> SyncChange.Media {
        let clip = ClipFiles(recording)
        guard let file = try blob(clip.media()) else {
            throw CraveyError(.notFound, "The file of \"\(recording.title)\" is missing (\(clip.media().path)); it cannot be sent to the sync folder.",
                              advice: .repairLibrary)
        }
        return SyncChange.Media(file: file, thumbnail: try clip.file(.thumbnail).flatMap(blob), waveform: try clip.file(.waveform).flatMap(blob),
                                duration: recording.duration, loudness: recording.loudness)
    }

    /// A new blob of `file`: its size and SHA-256; nil when there is no such file.
    private func blob(_ file: StoredFile) throws -> SyncChange.Blob? {
        guard case .regular = store.status(of: file) else { return nil }
        let descriptor = try store.open(file)
        defer { try? descriptor.close() }
        let (size, hash) = try SHA256.of(descriptor)
        return SyncChange.Blob(device: device, id: UUID(), size: size, sha256: hash.hexDigest())
    }
}
