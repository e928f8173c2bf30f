import Foundation

/// A library of clips in a folder of this machine, and the one way to read and change it.
///
/// Everything that changes the library goes through here, and each change is one transaction of
/// the library's store: the writers' lock (which other `cravey` processes share), the database's
/// rows and the folder's files kept in step, so several processes and threads can share one
/// library. Reading takes no lock and sees a consistent snapshot.
///
/// What it offers, and where each part lives:
///
/// | what | methods | file |
/// |---|---|---|
/// | open, read | ``init(at:creating:)``, ``recordings(sortedBy:)``, ``recording(_:)``, ``recording(matching:)``, ``quickPlay(tagged:)``, ``tags()``, ``plays(of:)``, ``count()``, ``fileURL(of:)``, ``storageReport()`` | `CraveyCore/Library/RecordingLibrary.swift` |
/// | change words and plays, tag, mark, pin, delete | ``edit(_:asked:_:)``, ``countPlay(of:secondsListened:completed:)``, ``tag(_:adding:removing:)``, ``addMarker(to:at:label:)``, ``removeMarker(_:of:)``, ``pin(_:slot:)``, ``unpin(_:)``, ``delete(_:asked:)``, ``version(of:)``, ``deleteAll()`` | `CraveyCore/Library/RecordingLibrary+Changes.swift` |
/// | export, back up | ``export(_:raw:tagged:exportDate:)``, ``backup(to:replacing:encryptingWith:progress:)`` | `CraveyCore/Library/RecordingLibrary+Export.swift`, `+Backup.swift` |
/// | restore | `restore(from:passphrase:progress:)` | `CraveyKit/Library/RecordingLibrary+Restore.swift` |
/// | record | `record(_:)` | `CraveyKit/Library/RecordingLibrary+Record.swift` |
/// | import | `importFile(at:metadata:createdAt:)` | `CraveyKit/Library/RecordingLibrary+Import.swift` |
/// | play | `play(_:options:)` | `CraveyKit/Library/RecordingLibrary+Play.swift` |
/// | thumbnails, waveforms | `makeThumbnail(of:at:)`, `writeThumbnail(of:at:to:replacing:)`, `waveform(of:)` | `CraveyKit/Library/RecordingLibrary+Analysis.swift` |
/// | transcripts | ``transcript(of:)``; `transcribe(_:language:progress:)` (the optional transcriber) | here; `CraveyKit/Library/RecordingLibrary+Transcript.swift` |
/// | trim, clean up, share | `proposedTrim(of:)`, `trim(_:from:to:asked:)`, `checkTrim(of:from:to:)`, `cleanNoise(of:asked:)`, `keep(_:)`, `discard(_:)`, `share(_:to:title:replacing:progress:)` | `CraveyKit/Library/RecordingLibrary+Shape.swift` |
/// | check and repair | `examine()`, `repair(deletingUnplayable:)` | `CraveyKit/Doctor/` (`LibraryDoctor`, the steps; the door forwards) |
///
/// The parts that work on media (record, import, play, thumbnails, waveforms, trim, repair,
/// restore) are in CraveyKit, which links FFmpeg and PulseAudio; the rest is here.
///
/// Blocking: a method that decodes media, records, plays or waits for a device is `async` and
/// runs its work on threads of its own. The others are synchronous: they wait only for the disk
/// and for another process's step under the writers' lock (a few milliseconds, or as long as a
/// backup or restore takes), so call them off the main actor.
///
/// The folder holds `library.sqlite`, `library.lock` and `Recordings/` (media files, each clip's
/// copy of its words and its waveform, and `Recordings/Thumbnails/`); folders are made mode 0700
/// and files 0600, and nothing outside the folder is ever read, changed or deleted through it.
public final class RecordingLibrary: Sendable {
    /// This program's version, recorded in every library it writes.
    package static let programVersion = "0.1.0"

    /// How many recordings Quick Play offers.
    public static let quickPlayCount = RecordingRepository.quickPlayCount

    /// The folder's files and the database's rows, and the one transaction that changes them.
    package let store: LibraryStore

    /// The library folder.
    public var url: URL { store.libraryURL }

    /// Whether the library is on the disk: false when it was opened with `creating: false` where
    /// there is none yet (it reads as empty, and changes nothing until opened with `creating`).
    public var isCreated: Bool { store.isStored }

    /// What a person should read once about the library folder: other users can reach it, or it
    /// belongs to someone else. The library works all the same.
    public var warnings: [String] { store.files?.warnings ?? [] }

    /// Opens the library in the folder at `url`, creating the folder (0700) and its database
    /// (0600) if needed; nothing that exists changes mode. A library that cannot be written
    /// (a read-only mount) opens for reading; one a newer cravey wrote opens for reading too, and
    /// every change is refused (`.newerLibrary`).
    ///
    /// With `creating` false nothing is made: a folder that is not there (or holds no library
    /// yet) reads as an empty library, for a program that only looks.
    ///
    /// Throws ``CraveyError``: `.invalidInput` for a folder that holds other things and is no
    /// cravey library (cravey never mixes its files with yours), `.cannotWrite` when the folder
    /// cannot be made or used (a `Recordings/` that is a link, a database that is a link),
    /// `.other` for a damaged database.
    public init(at url: URL, creating: Bool = true) throws {
        store = try LibraryStore(at: url, creating: creating)
    }

    /// Opens the default library: `$CRAVEY_LIBRARY`, else `$XDG_DATA_HOME/cravey`, else
    /// `~/.local/share/cravey`.
    public convenience init(creating: Bool = true) throws {
        try self.init(at: LibraryLocation.resolve(explicit: nil), creating: creating)
    }

    // MARK: - Reading

    /// Every recording, in one of the orders the command line offers.
    ///
    /// With `tag`, only the recordings tagged so (``tag(_:adding:removing:)``); a tag no
    /// recording has lists none, and one no tag can be is refused (`.invalidInput`).
    public func recordings(sortedBy sort: RecordingSort = .recent, tagged tag: String? = nil) throws -> [Recording] {
        let tag = try tag.map(ClipTags.named)
        return try store.read { db in try RecordingRepository(db).recordings(sortedBy: sort, tagged: tag) }
    }

    /// The longest filter or search the library takes, in characters (a longer one is refused,
    /// or matches no clip).
    public static let maxFilterLength = ClipSearch.maxQueryLength

    /// A page of the clips as a list shows them, in one snapshot: the rows `request` asks for (an
    /// order, a filter typed into a list or a search, from a position), with the counts and Quick
    /// Play a list's header shows and where each row's words matched (see
    /// ``LibraryPage/Request``). The home screen's list and `cravey search` read the library so.
    /// A search that holds no word or is not FTS5 syntax is refused (`.invalidInput`).
    public func page(_ request: LibraryPage.Request) throws -> LibraryPage {
        try store.read { db in try LibraryPage(request, in: db) }
    }

    /// Every tag some recording has, sorted (what the shells' completion offers).
    public func tags() throws -> [String] {
        try store.read { db in try ClipTags(db).inUse() }
    }

    /// The recording with this id, or nil.
    public func recording(_ id: RecordingID) throws -> Recording? {
        try store.read { db in try RecordingRepository(db).recording(id) }
    }

    /// The one recording whose id starts with `prefix` (as git resolves abbreviated hashes).
    /// Throws `.notFound` for none and `.invalidInput` when several match or it is no id.
    public func recording(matching prefix: String) throws -> Recording {
        try store.read { db in try RecordingRepository(db).recording(matching: prefix) }
    }

    /// Quick Play, ``quickPlayCount`` recordings: those pinned to a slot (``pin(_:slot:)``) in
    /// their slots, the other slots filled with the most played, ties broken by last played,
    /// then newest. With fewer recordings than slots, a pinned one moves up to the first slot
    /// left empty before it.
    /// With `tag`, only the recordings tagged so take part.
    public func quickPlay(tagged tag: String? = nil) throws -> [Recording] {
        let tag = try tag.map(ClipTags.named)
        return try store.read { db in try RecordingRepository(db).quickPlay(tagged: tag) }
    }

    /// Every play of a recording, oldest first.
    public func plays(of id: RecordingID) throws -> [PlayEvent] {
        try store.read { db in try RecordingRepository(db).plays(of: id) }
    }

    /// How many recordings the library holds.
    public func count() throws -> Int {
        try store.read { db in try RecordingRepository(db).count() }
    }

    /// Where `recording`'s media file is, checked to be a regular file inside the library
    /// (`.notFound` when it is missing): for handing it to another program.
    public func fileURL(of recording: Recording) throws -> URL {
        let media = try mediaFile(of: recording)
        return store.files!.url(of: media)
    }

    /// `recording`'s media file, which must be there as a regular file: `.notFound` when it is
    /// missing, `.invalidInput` when a link or special file stands in its place. Always the
    /// clip's own name (``ClipFiles``), whatever its row's path says.
    package func mediaFile(of recording: Recording) throws(CraveyError) -> StoredFile {
        let media = ClipFiles(recording).media()
        switch store.status(of: media) {
        case .regular:
            return media
        case .missing:
            let place = store.files.map { $0.url(of: media).path } ?? media.path
            throw CraveyError(.notFound, "The file of \"\(recording.title)\" is missing: \(place).", advice: .checkLibrary)
        case .other(let kind):
            throw CraveyError(.invalidInput, "Refusing the file of \"\(recording.title)\": \(kind) stands where its media belongs (\(media.path)), and cravey never follows a link out of the library folder.",
                              advice: .repairLibrary)
        }
    }

    /// Where `recording`'s thumbnail is, when it has one there as a regular file: for a desktop
    /// that shows it.
    package func thumbnailURL(of recording: Recording) -> URL? {
        guard recording.thumbnailPath != nil, let file = ClipFiles(recording).file(.thumbnail),
              store.status(of: file).size != nil else { return nil }
        return store.files?.url(of: file)
    }

    /// `recording`'s waveform as it is stored beside it, read without decoding anything; nil
    /// when none is stored (a clip saved before waveforms were kept, or without sound) or the
    /// file there does not read as one. CraveyKit's `waveform(of:)` makes a missing one.
    package func storedWaveform(of recording: Recording) -> Waveform? {
        store.waveform(of: ClipFiles(recording))
    }

    /// The words said in `recording`, with their times, as `cravey transcribe` (or
    /// ``transcribe(_:language:progress:)`` in CraveyKit) stored them; nil when it has no transcript (none
    /// made yet, or dropped by a noise clean-up), or the file does not read as one.
    package func transcript(of recording: Recording) -> Transcript? {
        store.contents(of: ClipFiles(recording).file(.transcript)!, atMost: Transcript.largestFile).flatMap(Transcript.init(data:))
    }

    /// How much room the library takes, and what it holds (``storageReport()``).
    package struct StorageReport: Codable, Sendable, Equatable {
        /// Bytes of every file under `Recordings/`, thumbnails included.
        package var totalBytes: Int64
        /// The same, as a person reads it ("1.5 MB").
        package var totalSize: String
        package var recordings: Int
        /// Recordings by type: `audio`, `video`.
        package var byType: [String: Int]
        /// Recordings by purpose, `none` for those without one.
        package var byPurpose: [String: Int]
    }

    /// How much room the library takes, and its recordings by type and purpose.
    package func storageReport() throws -> StorageReport {
        let recordings = try recordings()
        let total = [StoredFile.Folder.recordings, .thumbnails].flatMap { store.files?.entries(in: $0) ?? [] }
            .reduce(Int64(0)) { $0 + ($1.status.size ?? 0) }
        var byType = Dictionary(uniqueKeysWithValues: RecordingType.allCases.map { ($0.rawValue, 0) })
        var byPurpose = Dictionary(uniqueKeysWithValues: (RecordingPurpose.allCases.map(\.rawValue) + ["none"]).map { ($0, 0) })
        for recording in recordings {
            byType[recording.type.rawValue, default: 0] += 1
            byPurpose[recording.purpose?.rawValue ?? "none", default: 0] += 1
        }
        return StorageReport(totalBytes: total, totalSize: ByteCount.text(total), recordings: recordings.count,
                             byType: byType, byPurpose: byPurpose)
    }
}
