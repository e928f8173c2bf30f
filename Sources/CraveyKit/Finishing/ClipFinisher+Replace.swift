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

    /// The identity of `file` in `store`, looked at without following a link.
    init?(of file: StoredFile, in store: LibraryStore) {
        guard let info = store.files?.information(about: file) else { return nil }
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
        var file: StoredFile
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
    func measure(_ file: StoredFile, type: RecordingType) throws -> Measured {
        let media = store.media(file)
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
    /// its own copy), in one transaction of the store; its id, title, notes, purpose, creation
    /// date and plays stay. The old media is gone with the rename that puts the new one in its
    /// place: what was cut is gone. Returns the row as it now is.
    ///
    /// A kill or a power cut at any instant leaves the whole old clip or the whole new one, once
    /// `doctor --repair` has run. Under the writers' lock, in order: the clip is read again and
    /// must still be what the replacement was made from (else nothing changes, `.busy`); the
    /// clip's journal is flushed; the new media takes the clip's name in one rename, its folder
    /// flushed; the waveform and thumbnail are written; the row gets the new facts and its copy
    /// is written before the commit; after the commit the journal goes. A crash between the
    /// journal and its removal leaves it, and a repair makes the clip's facts, waveform,
    /// thumbnail and copy again from whichever media is in place (``StoreTransaction/replaceMedia(of:with:)``).
    func replace(_ replacement: Replacement, with measured: Measured) throws -> Recording {
        let id = replacement.recording.id
        let clip = ClipFiles(replacement.recording)
        defer { store.remove(replacement.file) }  // gone already once it took the clip's name
        return try store.write { tx in
            guard let current = try tx.repository.recording(id) else {
                throw CraveyError(.notFound, "\"\(replacement.recording.title)\" is no longer in the library; nothing was changed.")
            }
            guard MediaIdentity(of: clip.media(), in: store) == replacement.source else {
                throw CraveyError(.busy, "\"\(current.title)\" was changed by another cravey while this change was being made; nothing was changed. Try again.")
            }
            let size = try tx.replaceMedia(of: clip, with: replacement.file)
            do {
                var thumbnail: String?
                if let jpeg = measured.thumbnail, clip.type == .video {
                    thumbnail = try tx.store(jpeg, as: .thumbnail, of: clip).path
                }
                if let waveform = measured.waveform {
                    try tx.store(waveform.audiowaveformData(), as: .waveform, of: clip)
                } else if let old = clip.file(.waveform) {
                    try tx.remove(old)  // the old media's: the new one has no sound to draw
                }
                return try tx.repository.updateMedia(of: id, duration: measured.duration, fileSize: size,
                                                     loudness: measured.loudness, thumbnailPath: thumbnail)
            } catch {
                throw CraveyError(.cannotWrite, "The new version of \"\(current.title)\" is in place, but what it owns could not all be written (\((error as? CraveyError)?.message ?? "\(error)")).",
                                  advice: .registerWithRepair, underlying: error)
            }
        }
    }
}
