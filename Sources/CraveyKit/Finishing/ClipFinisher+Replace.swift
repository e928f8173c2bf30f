import Foundation
import SystemPackage

/// Which file a clip's media was when something was made from it: its device, inode, size and
/// change time, read from the descriptor it was read through. A replacement made from one file
/// is refused once the clip's media is another (another process changed it meanwhile).
struct MediaIdentity: Equatable, Sendable {
    private let device: UInt64
    private let inode: UInt64
    private let size: Int64
    private let changed: Int64

    /// The identity of the file open at `descriptor`; nil when it cannot be told. The
    /// corresponding C function is `fstat`.
    init?(of descriptor: FileDescriptor) {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }

    /// The identity of the file at `url` in `storage`, looked at without following a link.
    /// The corresponding C function is `fstatat` with `AT_SYMLINK_NOFOLLOW`.
    init?(of url: URL, in storage: FileStorageManager) {
        guard let (folder, name) = try? storage.locate(url),
              let info = try? storage.withFolder(folder, { descriptor -> stat? in
                  var info = stat()
                  return fstatat(descriptor.rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
              }) ?? nil else { return nil }
        self.init(info)
    }
}

extension ClipFinisher {
    /// A clip's new media (trimmed, cleaned), written in `Recordings/` under its writing name,
    /// and what it was made from.
    struct Replacement: Sendable {
        /// The clip as it was read when its new media was made.
        var recording: Recording
        /// The new media, complete, under the clip's `.importing` name, held by this process.
        var file: URL
        /// The media file it was made from.
        var source: MediaIdentity
    }

    /// What the new media holds, measured once: its duration, its loudness and waveform (one
    /// decoding), a video's thumbnail.
    struct Measured: Sendable {
        var duration: Double
        var loudness: LoudnessMeasurement?
        var waveform: Waveform?
        var thumbnail: Data?
    }

    /// Measures a clip's new media as ``finish(_:metadata:createdAt:)`` measures a new clip's:
    /// its duration, its loudness and waveform in one decoding (the waveform cut to the
    /// duration: the decoder also gives the samples a last frame holds past the edit list's
    /// end), a video's thumbnail at 10% of its length. Blocking.
    func measure(_ file: URL, type: RecordingType) throws -> Measured {
        let media = storage.media(file)
        let duration = try MediaProbe.duration(of: media)
        let analysis = try AudioAnalysis.measure(media, loudness: true, waveform: true)
        var waveform = analysis?.waveform
        if let peaks = waveform {
            let count = Int((duration * Double(peaks.sampleRate) / Double(peaks.samplesPerPeak)).rounded(.up))
            waveform = Waveform(sampleRate: peaks.sampleRate, samplesPerPeak: peaks.samplesPerPeak, peaks: Array(peaks.peaks.prefix(count)))
        }
        let thumbnail = type == .video ? try? Thumbnailer.jpeg(forVideoAt: media) : nil
        return Measured(duration: duration, loudness: analysis?.loudness, waveform: waveform, thumbnail: thumbnail)
    }

    /// Replaces a clip's media with `replacement`'s, and with it everything derived from the
    /// media (its row's duration, size, loudness and thumbnail path, its waveform, its thumbnail,
    /// its own copy), in one durable step under the writers' lock; its id, title, notes, purpose,
    /// creation date and plays stay. The old media is deleted: what was cut is gone. Returns the
    /// row as it now is.
    ///
    /// A kill or a power cut at any instant leaves the whole old clip or the whole new one, once
    /// `doctor --repair` has run (as after a cut-off `delete`). The commit point is the deletion
    /// of the clip's row: before it, the old files wait under `.deleting-` names, which a repair
    /// puts back since the row still names them; after it, the new media and its copy are in
    /// place with no row, which a repair registers from the copy. The protocol, in order:
    ///
    /// 1. Under the writers' lock: the row is read again (gone: nothing changes, `.notFound`),
    ///    with its plays; the media must still be the file the replacement was made from
    ///    (another change meanwhile: nothing changes). The new media is flushed to the disk.
    ///    A clip without its own copy gets it first (the row as it is), so every old file can
    ///    be put back.
    /// 2. The old media, copy, waveform and thumbnail are renamed to `.deleting-` names and their
    ///    folders flushed. A crash: the repair renames them back (the row names them) and
    ///    deletes the new `.importing` file no process holds: the old clip.
    /// 3. The new copy (the row as it will be, its plays) is written, and the new waveform and
    ///    thumbnail where the old clip had one (a repair puts the old ones back over them); then,
    ///    last, the new media takes the clip's name (a rename) and the folder is flushed. A
    ///    crash: as in 2, the old clip (but see "One window" below).
    /// 4. COMMIT: the row (and its plays) is deleted, durably (`synchronous = FULL`). A crash
    ///    from here: the repair deletes the `.deleting-` files (no row names them) and registers
    ///    the media with its words, date, plays and loudness from its copy, making its waveform
    ///    and thumbnail again: the new clip.
    /// 5. The `.deleting-` files are unlinked and their folders flushed (before the row comes
    ///    back, or a repair would put them back over the new files); the waveform and thumbnail
    ///    the old clip did not have are written.
    /// 6. The new row is inserted with the plays (its copy was written in 3).
    ///
    /// A failure before 4 puts every old file back and removes the new ones: nothing changed. A
    /// failure after it leaves the new clip for a repair to register, and says so. Processes
    /// that only read and take no lock (`list`) may see the clip's media change a moment before
    /// its row, and no row between 4 and 6 (a few milliseconds).
    ///
    /// One window today's repair does not close: between the media's rename in 3 and the commit
    /// in 4 (a rename, a folder flush and one SQLite commit: about a millisecond) the repair
    /// measures the sizes of rows' media before it puts `.deleting-` files back, so it puts the
    /// old media back but records the new one's size in the row (a second repair fixes the size).
    /// Its fix belongs to the repair (a size measured on a file it then replaced is not applied);
    /// a transaction that owns its file steps closes it for good.
    func replace(_ replacement: Replacement, with measured: Measured) throws -> Recording {
        let id = replacement.recording.id, type = replacement.recording.type
        defer { storage.release(replacement.file) }
        return try storage.exclusively {
            // 1. The clip as it is now, unchanged since the replacement was made from it.
            let current: Recording, media: URL, plays: [PlayEvent]
            var row: Recording
            do {
                guard let found = try storage.repository.fetch(id: id) else {
                    throw CraveyError(.notFound, "\"\(replacement.recording.title)\" is no longer in the library; nothing was changed.")
                }
                current = found
                media = try storage.mediaURL(of: current)
                guard MediaIdentity(of: media, in: storage) == replacement.source else {
                    throw CraveyError(.busy, "\"\(current.title)\" was changed by another cravey while this change was being made; nothing was changed. Try again.")
                }
                plays = try storage.repository.playEvents(of: id)
                row = current
                row.duration = measured.duration
                row.loudness = measured.loudness
                row.thumbnailPath = type == .video && measured.thumbnail != nil ? FileStorageManager.thumbnailPath(for: id) : nil
                let flushed = try storage.openForReading(replacement.file)
                defer { try? flushed.close() }
                guard fsync(flushed.rawValue) == 0, let size = storage.size(of: replacement.file) else {
                    throw FileStorageManager.writeError(errno, storage.url(of: current.filePath), doing: "write the new version of")
                }
                row.fileSize = size
            } catch {
                try? storage.remove(replacement.file)
                throw error
            }
            let thumbnailPath = FileStorageManager.thumbnailPath(for: id)
            let copyPath = FileStorageManager.metadataPath(for: id, type: type)
            let waveformPath = FileStorageManager.waveformPath(for: id, type: type)
            if storage.size(of: storage.url(of: copyPath)) == nil { try storage.keep(current, plays: plays) }

            // 2. The old files set aside, reversibly.
            var marked: [(path: String, url: URL)] = []
            var placed: [String] = []
            func undo() {
                for path in placed where !marked.contains(where: { $0.path == path }) { try? storage.remove(storage.url(of: path)) }
                for old in marked { storage.unmark(old.url) }
                try? storage.remove(replacement.file)
                flush([.recordings, .thumbnails])
            }
            do {
                for path in [current.filePath, copyPath, waveformPath, current.thumbnailPath].compactMap({ $0 }) {
                    if let url = try storage.markForDeletion(path) { marked.append((path, url)) }
                }
                try flushing([.recordings, .thumbnails])
                // 3. The new files in place: the copy and what the old clip had, then the media
                // last, just before the commit (see "One window" above).
                try storage.keep(row, plays: plays)
                placed.append(copyPath)
                if let waveform = measured.waveform, marked.contains(where: { $0.path == waveformPath }) {
                    try storage.storeWaveform(waveform, for: id, type: type)
                    placed.append(waveformPath)
                }
                if let jpeg = measured.thumbnail, row.thumbnailPath != nil, marked.contains(where: { $0.path == thumbnailPath }) {
                    _ = try storage.storeThumbnail(jpeg, for: id)
                    placed.append(thumbnailPath)
                }
                try flushing([.thumbnails])
                try storage.replace(media, with: replacement.file)
                placed.append(current.filePath)
                defer { storage.release(media) }
                try flushing([.recordings])
                // 4. The commit point.
                _ = try storage.repository.delete(id: id)
            } catch {
                undo()
                throw error
            }

            // 5. The old files gone for good, then what the old clip did not have.
            do {
                for old in marked { try storage.remove(old.url) }
                try flushing([.recordings, .thumbnails])
            } catch let error as CraveyError {
                throw CraveyError(.cannotWrite, "\"\(current.title)\" was changed, but its old files could not all be deleted (\(error.message)); it is out of the library until it is registered again.",
                                  advice: .registerWithRepair, underlying: error)
            }
            if let waveform = measured.waveform, !placed.contains(waveformPath) {
                // Like a new clip's: one that cannot be written costs nothing, the first use makes it.
                try? storage.storeWaveform(waveform, for: id, type: type)
            }
            var copyIsCurrent = true
            if let jpeg = measured.thumbnail, row.thumbnailPath != nil, !placed.contains(thumbnailPath),
               (try? storage.storeThumbnail(jpeg, for: id)) == nil {
                row.thumbnailPath = nil  // a video saved without its thumbnail, as a new clip may be
                copyIsCurrent = false
            }

            // 6. The row back, as the copy says.
            do {
                try storage.repository.insert(row, plays: plays, alreadyKept: copyIsCurrent)
            } catch {
                throw CraveyError(.cannotWrite, "\"\(current.title)\" was changed, but its library entry could not be written again (\(CraveyError(database: error)?.message ?? "\(error)")).",
                                  advice: .registerWithRepair, underlying: error)
            }
            return row
        }
    }

    /// Flushes the entries of `folders` to the disk; throws what the first failure says.
    /// The corresponding C function is `fsync` on each folder's descriptor.
    private func flushing(_ folders: [FileStorageManager.Folder]) throws(CraveyError) {
        for folder in folders {
            let descriptor = try storage.openFolder(folder)
            defer { try? descriptor.close() }
            guard fsync(descriptor.rawValue) == 0 else {
                throw FileStorageManager.writeError(errno, storage.url(of: folder), doing: "flush the folder")
            }
        }
    }

    /// ``flushing(_:)`` on a path that is already failing.
    private func flush(_ folders: [FileStorageManager.Folder]) {
        try? flushing(folders)
    }
}
