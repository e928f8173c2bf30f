import Foundation
import GRDB
import SystemPackage

/// Merging what other devices wrote into the sync folder (docs/sync.md), as ``SyncState``'s
/// rules say, into the rows: each device's change files past the last one merged are read and
/// checked; those whose clips are known (here, or made by a file merged with them) and whose
/// media has arrived are merged, the media copied into `Recordings/` first (written beside,
/// checked against the size and SHA-256 the change names), then every change applied and the
/// new "merged up to" noted, in one transaction. What it writes is noted as told
/// (``SyncLog/note(_:)``), so the merge's changes are not captured as this device's.
///
/// A file waits, nothing of it applied, while a clip it changes is known nowhere here (its
/// `clip` change has not arrived) or a blob it names is not there whole; a file that does not
/// authenticate or decode, or holds a change whose clock is more than a day ahead, is refused
/// and noted (``SyncLog/refused()``, `sync --status`); the files after it wait behind it.
struct SyncMerge {
    let store: LibraryStore
    let folder: SyncFolder
    /// This library's device: its own files are not merged.
    let device: SyncDevice

    /// One change file read.
    struct File {
        var device: SyncDevice
        var number: UInt64
        var changes: [SyncChange]
    }

    /// A clip's media as merging makes it: the change made last of those merged, and the files
    /// its blobs were copied into.
    struct Media {
        var change: SyncChange
        var media: SyncChange.Media
        var made: (type: RecordingType, createdAt: Date)?
        var madeBy: SyncChange?
        /// Whether it makes a clip not here yet (else it replaces the media of one here).
        var isNew = false
        var file: StoredFile?
        var thumbnail: Data?
        var waveform: Data?
    }

    /// The largest thumbnail or waveform taken in (a waveform of hours is a few MiB).
    static let largestPart: Int64 = 64 << 20

    /// Merges what can be merged now (``LibrarySync/merge(now:)``); `now` is this machine's
    /// time, against which a change's clock is judged.
    func merge(now: Date = Date()) throws -> LibrarySync.Merging {
        let merged = try store.read { db in try SyncLog(db).merged() }
        var (available, refusals) = read(past: merged, now: now)
        var blocked: [SyncDevice: UInt64] = [:]
        var outcome = LibrarySync.Merging()
        if available.isEmpty {  // nothing new: the rows are not read
            if !refusals.isEmpty {
                try store.write { tx in for (other, number, reason) in refusals { try SyncLog(tx.db).refuse(number, of: other, because: reason) } }
            }
            outcome.refused = refusals.filter { $0.reason != nil }.count
            return outcome
        }
        while true {
            let ready = try plan(available, blocked: blocked)
            var media: [RecordingID: Media] = [:]
            do {
                media = try copyMedia(of: ready)
            } catch let failure as BlobFailure {
                blocked[failure.device] = min(blocked[failure.device] ?? .max, failure.file)
                refusals.append((failure.device, failure.file, "media it names is in the folder but is not what it names (its size and SHA-256), or does not authenticate; it waits"))
                continue
            }
            defer { for file in media.values.compactMap(\.file) { store.remove(file) } }
            try store.write { tx in try apply(ready, media: media, refusals: refusals, in: tx) }
            outcome.files = ready.count
            outcome.changes = ready.reduce(0) { $0 + $1.changes.count }
            outcome.blobs = media.count
            outcome.waiting = available.values.reduce(0) { $0 + $1.count } - ready.count
            outcome.refused = refusals.filter { $0.reason != nil }.count
            return outcome
        }
    }

    // MARK: - Reading

    /// Each other device's change files past `merged`, in order, up to the first that is not
    /// there or cannot be believed; and the refusal of each file read (nil: none).
    func read(past merged: [SyncDevice: UInt64], now: Date) -> ([SyncDevice: [File]], [(device: SyncDevice, file: UInt64, reason: String?)]) {
        var available: [SyncDevice: [File]] = [:]
        var refusals: [(device: SyncDevice, file: UInt64, reason: String?)] = []
        let latest = SyncClock.milliseconds(now) + SyncClock.tolerance
        for (other, last) in (try? folder.devices()) ?? [:] where other != device {
            var number = (merged[other] ?? 0) + 1
            while number <= last {
                do {
                    guard let changes = try folder.read(number, of: other) else { break }
                    if let ahead = changes.first(where: { $0.time.milliseconds > latest }) {
                        let when = Date(timeIntervalSince1970: Double(ahead.time.milliseconds) / 1000)
                        refusals.append((other, number, "a change made at \(when), more than a day ahead of this machine's clock; it waits until then"))
                        break
                    }
                    available[other, default: []].append(File(device: other, number: number, changes: changes))
                    refusals.append((other, number, nil))
                } catch {
                    refusals.append((other, number, (error as? CraveyError)?.message ?? "\(error)"))
                    break
                }
                number += 1
            }
        }
        return (available, refusals)
    }

    // MARK: - Planning

    /// The files to merge, in order: each device's, from its first, while every clip they
    /// change is known (a row here, a clip deleted, or made by a file merged before it) and the
    /// blobs their media names are in the folder; none of a device's from `blocked` on.
    func plan(_ available: [SyncDevice: [File]], blocked: [SyncDevice: UInt64]) throws -> [File] {
        var (known, doomed) = try store.read { db in
            (Set(try String.fetchAll(db, sql: "SELECT id FROM recording")), Set(try String.fetchAll(db, sql: "SELECT clip FROM syncTombstone")))
        }
        for file in available.values.joined() {
            for change in file.changes { if case .delete = change.kind, let clip = change.clip { doomed.insert(clip.description) } }
        }
        known.formUnion(doomed)
        var next: [SyncDevice: Int] = [:]
        var ready: [File] = []
        var progress = true
        while progress {
            progress = false
            for (other, files) in available.sorted(by: { $0.key < $1.key }) {
                while let index = Optional(next[other] ?? 0), index < files.count, files[index].number < blocked[other] ?? .max {
                    let file = files[index]
                    let made = Set(file.changes.compactMap { change in if case .clip = change.kind { change.clip?.description } else { nil } })
                    let referenced = file.changes.compactMap { change -> String? in
                        if case .pin(_, let clip) = change.kind { return clip?.description }
                        if case .delete = change.kind { return nil }
                        return change.clip?.description
                    }
                    guard referenced.allSatisfy({ known.contains($0) || made.contains($0) }),
                          blobsThere(of: file, later: files[(index + 1)...], doomed: doomed) else { break }
                    known.formUnion(made)
                    ready.append(file)
                    next[other] = index + 1
                    progress = true
                }
            }
        }
        return ready
    }

    /// Whether the blobs `file`'s media names are in the folder, but those of a clip deleted
    /// and those a later change of the same device replaces (a trim made before the send: the
    /// media it cut was never written).
    private func blobsThere(of file: File, later: ArraySlice<File>, doomed: Set<String>) -> Bool {
        for (index, change) in file.changes.enumerated() {
            guard let media = change.media, let clip = change.clip, !doomed.contains(clip.description) else { continue }
            let replaced = (file.changes[(index + 1)...] + later.flatMap(\.changes)).contains { $0.clip == clip && $0.media != nil }
            if replaced { continue }
            for blob in [media.file, media.thumbnail, media.waveform].compactMap({ $0 })
            where !FileManager.default.fileExists(atPath: folder.file(of: blob).path) {
                return false
            }
        }
        return true
    }

    // MARK: - The media

    /// A blob that is there but is not what its change says (or does not authenticate): the
    /// file naming it, and the device's files after it, wait.
    struct BlobFailure: Error {
        var device: SyncDevice
        var file: UInt64
    }

    /// The media each clip takes from the files merged (the change made last, when it is later
    /// than what the folder was told here), its blobs copied into the library: the media under
    /// the clip's `.importing` name (a new clip) or its `.finishing` one (new media).
    func copyMedia(of files: [File]) throws -> [RecordingID: Media] {
        var chosen: [RecordingID: Media] = [:]
        // A clip these files delete takes no media (its blobs may never have been written).
        let doomed = Set(files.flatMap(\.changes).compactMap { change in if case .delete = change.kind { change.clip } else { nil } })
        for file in files {
            for change in file.changes {
                guard let media = change.media, let clip = change.clip, !doomed.contains(clip) else { continue }
                var entry = chosen[clip] ?? Media(change: change, media: media)
                if case .clip(let type, let createdAt, _) = change.kind, entry.madeBy.map({ change.isBefore($0) }) ?? true {
                    (entry.made, entry.madeBy) = ((type, createdAt), change)  // the earliest clip change makes it
                }
                if entry.change.isBefore(change) { (entry.change, entry.media) = (change, media) }
                chosen[clip] = entry
            }
        }
        var copied: [RecordingID: Media] = [:]
        do {
            for (clip, var entry) in chosen.sorted(by: { $0.key.description < $1.key.description }) {
                let (row, deleted, told) = try store.read { db in
                    (try RecordingRepository(db).recording(clip), try SyncLog(db).isDeleted(clip), try SyncLog(db).stamped(clip.description, "media"))
                }
                guard !deleted, told.map({ $0 < SyncLog.order(entry.change) }) ?? true else { continue }
                guard let type = row?.type ?? entry.made?.type else { continue }  // new media of a clip not here: its clip change is not merged
                let files = ClipFiles(id: clip, type: type)
                entry.isNew = row == nil
                let target = entry.isNew ? files.media(.importing) : files.media(finishing: true)
                let failure = BlobFailure(device: entry.change.id.device, file: entry.change.id.file)
                let media = try claim(target)
                do {
                    guard try folder.copy(entry.media.file, into: media) else { throw failure }
                    try media.close()
                } catch {
                    store.discard(media)
                    throw error is Age.Refusal ? failure : error
                }
                entry.file = target
                copied[clip] = entry
                entry.thumbnail = try part(entry.media.thumbnail, failure)
                entry.waveform = try part(entry.media.waveform, failure)
                copied[clip] = entry
            }
        } catch {
            for file in copied.values.compactMap(\.file) { store.remove(file) }
            throw error
        }
        return copied
    }

    /// Creates `file` (a clip's media being written) for this merge; one a crash left is
    /// removed first. `.busy` when another process is writing it (another merge, at once).
    private func claim(_ file: StoredFile) throws -> MediaFile {
        do {
            return try store.create(file)
        } catch Errno.fileExists {
            guard store.claim(file) else {
                throw CraveyError(.busy, "Another cravey is merging the sync folder's changes into this library; try again once it is done.")
            }
            store.remove(file)
            return try store.create(file)
        }
    }

    /// The plaintext of a thumbnail or waveform blob, checked.
    private func part(_ blob: SyncChange.Blob?, _ failure: BlobFailure) throws -> Data? {
        guard let blob else { return nil }
        guard blob.size <= Self.largestPart, let data = try? folder.read(blob) else { throw failure }
        return data
    }

    // MARK: - Applying

    /// Applies `files` by the rules in one transaction: the new clips saved with their media,
    /// every change merged into the rows (and noted as told), new media put in place, and the
    /// devices' "merged up to" and refusals noted.
    func apply(_ files: [File], media: [RecordingID: Media], refusals: [(device: SyncDevice, file: UInt64, reason: String?)],
               in tx: StoreTransaction) throws {
        tx.mergingSync()
        let log = SyncLog(tx.db), repository = tx.repository
        guard var joined = try log.joined() else { return }
        var clock = SyncClock(device: joined.latest.device, latest: joined.latest)
        // The new clips first, so that every change of theirs finds its row: saved together, as
        // a restore saves its clips (their folder flushed once for all).
        var saving: [(file: StoredFile, recording: Recording, plays: [PlayEvent])] = []
        for (id, entry) in media.sorted(by: { $0.key.description < $1.key.description }) where entry.isNew {
            guard let file = entry.file, let made = entry.made, try repository.recording(id) == nil, try !log.isDeleted(id) else { continue }
            let clip = ClipFiles(id: id, type: made.type)
            let thumbnail = try entry.thumbnail.map { try tx.store($0, as: .thumbnail, of: clip).path }
            if let waveform = entry.waveform { try tx.store(waveform, as: .waveform, of: clip, flushingFolder: false) }  // flushed by the save
            saving.append((file, Recording(id: id, type: made.type, title: "", createdAt: made.createdAt, duration: entry.media.duration,
                                           filePath: "", thumbnailPath: thumbnail, fileSize: 0, loudness: entry.media.loudness), []))
            try log.note(entry.change)
        }
        _ = try tx.save(saving)
        var touched: Set<RecordingID> = [], pins = false
        for file in files {
            for change in file.changes {
                clock.merge(change.time)
                pins = try apply(change, in: tx, touched: &touched) || pins
            }
        }
        // New media of clips there: in place, plays kept, markers as they are.
        for (id, entry) in media where !entry.isNew {
            guard let file = entry.file, let row = try repository.recording(id), try !log.isDeleted(id),
                  try log.stamped(id.description, "media").map({ $0 < SyncLog.order(entry.change) }) ?? true else { continue }
            let clip = ClipFiles(row)
            let size = try tx.replaceMedia(of: clip, with: file, markers: row.markers)
            let thumbnail = try entry.thumbnail.map { try tx.store($0, as: .thumbnail, of: clip).path }
            if let waveform = entry.waveform { try tx.store(waveform, as: .waveform, of: clip) }
            try repository.updateMedia(of: id, duration: entry.media.duration, fileSize: size, loudness: entry.media.loudness,
                                       thumbnailPath: thumbnail ?? row.thumbnailPath, markers: row.markers)
            try log.note(entry.change)
        }
        for id in touched.sorted(by: { $0.description < $1.description }) { try settle(id, in: tx) }
        if pins || !touched.isEmpty { try settlePins(in: tx) }
        for (other, numbers) in Dictionary(grouping: files, by: \.device) {
            try log.merged(numbers.map(\.number).max()!, of: other)
        }
        for (other, number, reason) in refusals { try log.refuse(number, of: other, because: reason) }
        joined.latest = SyncTime(milliseconds: clock.latest.milliseconds, counter: clock.latest.counter, device: joined.device)
        try log.save(joined)
    }

    /// Applies one change (not a `clip` or `media` change: ``copyMedia(of:)`` and the new clips
    /// took those); returns whether it changed a Quick Play slot. A change of a clip deleted is
    /// dropped; a field, the words, a slot take it only when it is later than what they hold.
    private func apply(_ change: SyncChange, in tx: StoreTransaction, touched: inout Set<RecordingID>) throws -> Bool {
        let log = SyncLog(tx.db), repository = tx.repository
        let later = { (subject: String, field: String) in try log.stamped(subject, field).map { $0 < SyncLog.order(change) } ?? true }
        if case .pin(let slot, _) = change.kind {
            guard (1...RecordingRepository.quickPlayCount).contains(slot), try later(SyncLog.quickPlay, "slot\(slot)") else { return false }
            try log.note(change)
            return true
        }
        guard let id = change.clip else { return false }
        if case .delete = change.kind {
            if try repository.recording(id) != nil { _ = try tx.delete(id) }
            try log.note(change)
            return true
        }
        guard try !log.isDeleted(id), let row = try repository.recording(id) else { return false }
        switch change.kind {
        case .field(let field, let value):
            guard try later(id.description, field.rawValue) else { return false }
            switch field {
            case .title: try repository.updateWords(of: id, title: value ?? "", notes: row.notes, purpose: row.purpose)
            case .notes: try repository.updateWords(of: id, title: row.title, notes: value, purpose: row.purpose)
            case .purpose: try repository.updateWords(of: id, title: row.title, notes: row.notes, purpose: value.flatMap(RecordingPurpose.init))
            }
            try log.note(change)
        case .words(let words):
            guard try later(id.description, "words"), let transcript = ClipFiles(row).file(.transcript) else { return false }
            if let words { try tx.store(words, as: .transcript, of: ClipFiles(row)) } else { try tx.remove(transcript) }
            try log.note(change)
        case .play(let playID, let at, let completed):
            guard try Bool.fetchOne(tx.db, sql: "SELECT 1 FROM playEvent WHERE syncID = ?", arguments: [playID.uuidString]) != true else { return false }
            var play = PlayEvent(recordingId: id, playedAt: at, secondsListened: completed ? row.duration : 0, completed: completed)
            try play.insert(tx.db)
            try tx.db.execute(sql: "UPDATE playEvent SET syncID = ? WHERE id = ?", arguments: [playID.uuidString, play.id])
            touched.insert(id)
        case .tagAdded(let tag, _), .tagRemoved(let tag, _):
            guard (try? ClipTags.checked(tag)) == tag else { return false }  // a crafted file's: no tag a person could give
            try log.note(change)
            touched.insert(id)
        case .markerAdded(_, let milliseconds, let label):
            guard milliseconds >= 0, (label?.count ?? 0) <= ClipMarker.maxLabelLength else { return false }  // a crafted file's
            try log.note(change)
            touched.insert(id)
        case .markerRemoved:
            try log.note(change)
            touched.insert(id)
        case .clip, .media, .delete, .pin:
            break
        }
        return false
    }

    /// Writes clip `id`'s plays, tags and markers as the changes merged make them: its count is
    /// its plays, its tags those with an add not removed, its markers one a millisecond (of
    /// two there, the one added last; the other noted removed, as every device does).
    private func settle(_ id: RecordingID, in tx: StoreTransaction) throws {
        guard var row = try tx.repository.recording(id) else { return }
        let log = SyncLog(tx.db)
        let plays = try tx.repository.plays(of: id)
        row.playCount = plays.count
        row.lastPlayedAt = plays.map(\.playedAt).max()
        row.tags = try log.tagAdds(of: id).keys.sorted()
        var kept: [Int64: (id: UUID, marker: ClipMarker, made: String)] = [:]
        for marker in try log.markersMade(of: id) {
            if let held = kept[marker.marker.milliseconds] {
                let (loser, winner) = held.made < marker.made ? (held, marker) : (marker, held)
                kept[marker.marker.milliseconds] = winner
                try log.dropMarker(loser.id, of: id)
            } else {
                kept[marker.marker.milliseconds] = marker
            }
        }
        row.markers = kept.keys.sorted().map { kept[$0]!.marker }
        try row.update(tx.db)
    }

    /// Gives each Quick Play slot the clip the last change of it named, when that clip is here;
    /// of two slots naming one clip, the one changed last holds it.
    private func settlePins(in tx: StoreTransaction) throws {
        let log = SyncLog(tx.db)
        let told = try log.values(of: SyncLog.quickPlay)
        var holder: [String: (slot: Int, order: String)] = [:]
        for slot in 1...RecordingRepository.quickPlayCount {
            guard let clip = told["slot\(slot)"] ?? nil, let order = try log.stamped(SyncLog.quickPlay, "slot\(slot)") else { continue }
            if let held = holder[clip], held.order > order { continue }
            holder[clip] = (slot, order)
        }
        for row in try Recording.filter(Recording.Columns.pinnedSlot != nil).fetchAll(tx.db) where holder[row.id.description]?.slot != row.pinnedSlot {
            try Recording.filter(key: row.id).updateAll(tx.db, [Recording.Columns.pinnedSlot.set(to: nil)])
        }
        for (clip, held) in holder {
            guard let id = RecordingID(clip), let row = try tx.repository.recording(id), row.pinnedSlot != held.slot else { continue }
            try Recording.filter(key: id).updateAll(tx.db, [Recording.Columns.pinnedSlot.set(to: held.slot)])
        }
    }
}

extension SyncChange {
    /// The media a `clip` or `media` change gives its clip.
    var media: Media? {
        switch kind {
        case .clip(_, _, let media), .media(let media): media
        default: nil
        }
    }

    /// Whether `change` comes after this one in the order of changes (its time, then its id).
    func isBefore(_ change: SyncChange) -> Bool {
        (time, id) < (change.time, change.id)
    }
}
