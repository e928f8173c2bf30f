import Foundation

/// A library of clips in a folder of this machine, and the one way to read and change it.
///
/// Everything that changes the library goes through here, and each change is one transaction of
/// the library's store: the writers' lock (which other `cravey` processes share), the database's
/// rows and the folder's files kept in step, so several processes and threads can share one
/// library. Reading takes no lock and sees a consistent snapshot.
///
/// The door itself holds what an embedder does with clips: open, read (a list a page at a time,
/// filtered or searched by the words said: ``page(_:)``, which the home screen and `cravey
/// search` both use), record, import, play, edit, tag, pin, count a play, trim, share, delete,
/// examine and repair. Everything else is a
/// capability reached from it, a small value holding the library, each in its own folder
/// beside its machinery; a new capability adds a property here, not methods:
///
/// | capability | what | file |
/// |---|---|---|
/// | ``analysis`` | a clip's waveform and thumbnail (made, written out, stored), its loudness | `CraveyCore/Library/LibraryAnalysis.swift`, `CraveyKit/Analysis/LibraryAnalysis+Media.swift` |
/// | ``markers`` | add and remove a clip's markers | `CraveyCore/Library/LibraryMarkers.swift` |
/// | ``archive`` | back up, check a backup, restore, export, write a file outside the library | `CraveyCore/Backup/LibraryArchive.swift`, `CraveyKit/Backup/LibraryArchive+Restore.swift` |
/// | ``storage`` | the room the library takes; delete every clip | `CraveyCore/Storage/LibraryStorage.swift` |
/// | ``reminders`` | reminders to listen: add, list, pause, resume, remove, a firing and the clip it offers, their systemd units | `CraveyCore/Reminders/` |
/// | `transcripts` | hear a clip's words, read them, correct them | `CraveyKit/Transcription/LibraryTranscripts.swift` |
/// | `shaping` | the proposed trim, trim, the noise clean-up (heard, then kept or discarded), share | `CraveyKit/Shaping/LibraryShaping.swift` |
/// | `doctor` | examine and repair, and its report | `CraveyKit/Doctor/` |
///
/// The door's own methods are in this file (open, read), `RecordingLibrary+Changes.swift`
/// (edit, tag, pin, count a play, delete) and CraveyKit's `Library/` (record, import, play,
/// trim, share) and `Doctor/RecordingLibrary+Repair.swift` (examine, repair). The parts that
/// work on media are in CraveyKit, which links FFmpeg and PulseAudio; the rest is here.
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

    /// A clip's waveform, thumbnail and loudness (``LibraryAnalysis``).
    package var analysis: LibraryAnalysis { LibraryAnalysis(library: self) }

    /// A clip's markers (``LibraryMarkers``).
    package var markers: LibraryMarkers { LibraryMarkers(library: self) }

    /// A person's own words, given to the transcriber (``LibraryVocabulary``).
    package var vocabulary: LibraryVocabulary { LibraryVocabulary(library: self) }

    /// Backups, restores, exports and files written outside the library (``LibraryArchive``).
    package var archive: LibraryArchive { LibraryArchive(library: self) }

    /// The room the library takes, and deleting every clip (``LibraryStorage``).
    package var storage: LibraryStorage { LibraryStorage(library: self) }

    /// Reminders to listen, at a time of day on some days (``LibraryReminders``).
    package var reminders: LibraryReminders { LibraryReminders(library: self) }

    /// The library on several machines: joining a sync folder, and sending its changes there
    /// (``LibrarySync``, docs/sync.md).
    package var sync: LibrarySync { LibrarySync(store: store) }

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
    package func page(_ request: LibraryPage.Request) throws -> LibraryPage {
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
        let media = try store.mediaFile(of: recording)
        return store.files!.url(of: media)
    }
}
