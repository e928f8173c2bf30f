import Foundation

/// What one clip owns in the library, named and listed once: its media (and the names it has
/// while it is written), a video's thumbnail, its waveform, its own copy of its words and, while
/// its media is replaced, its journal; each is a ``Part`` of the one list ``Part/all``.
///
/// Delete, delete-all, doctor and `--repair`, import clean-up, the store's transaction, backup
/// and restore all go through this type and that list, and no other file spells a clip's file
/// names: a new artefact is one more ``Part``. Names are `<type>_<uuid>` (lowercase id) followed
/// by what the part is:
///
/// | part | name | is | a backup | a repair |
/// |---|---|---|---|---|
/// | media | `Recordings/audio_<uuid>.m4a`, `Recordings/video_<uuid>.mp4` | original | carries it | keeps it |
/// | media being written | the same + `.partial` (recording), `.importing` (import), and + `.finishing` for its rewrite | | | |
/// | thumbnail | `Recordings/Thumbnails/video_<uuid>.jpg` (a video's) | derived | carries it | makes it from the media |
/// | waveform | `Recordings/<type>_<uuid>.peaks.dat` (audiowaveform's binary format) | derived | carries it | makes it from the media |
/// | copy | `Recordings/<type>_<uuid>.json` (its row, loudness and plays) | derived | carries it (as the clip's record) | writes it from the row |
/// | transcript | `Recordings/<type>_<uuid>.words.json` (its words and their times; searched: ``ClipSearch``) | derived | carries it | leaves it to `cravey transcribe` |
/// | journal | `Recordings/<type>_<uuid>.replacing` (only while its media is replaced: trim, clean) | transient | leaves it out | finishes the replacement |
///
/// Two markers go before a name: `.deleting-<name>` while a deletion is under way, and
/// `.<name>.<UUID>.tmp` for an atomic write's temporary file.
package struct ClipFiles: Hashable, Sendable {
    package let id: RecordingID
    package let type: RecordingType

    package init(id: RecordingID, type: RecordingType) {
        self.id = id
        self.type = type
    }

    /// The clip a recording is.
    package init(_ recording: Recording) {
        self.init(id: recording.id, type: recording.type)
    }

    /// What a file of a clip is, and what becomes of it: an entry of the one list of what a clip
    /// owns, ``all``.
    ///
    /// A part says where its file is (its folder, and the suffix after the clip's stem), which
    /// clips have one, whether it can be made again (``Origin``), whether a backup carries it and
    /// how a repair makes it again (``Remaking``). Two parts are the same when their names are.
    /// A `switch` over a part matches the constants (`case .media:`) and needs a `default`.
    package struct Part: Hashable, Sendable, CustomStringConvertible {
        /// What a part is worth when it is lost.
        package enum Origin: Hashable, Sendable {
            /// It cannot be made again: the media, the words a person gave.
            case original
            /// It is made from the clip's media or its row, and can be made again.
            case derived
            /// It is there only while a change is under way; a crash leaves it for a repair.
            case transient
        }

        /// How a repair (or the clip's next use) makes the part again.
        package enum Remaking: Hashable, Sendable {
            /// Never: it is kept as it is, or lost.
            case never
            /// Written again from the clip's row and plays (the copy).
            case fromRow
            /// Made from the media by its maker (CraveyKit's `PartMaker`: a thumbnail, a
            /// waveform) whenever the clip gets media: saved, imported, restored, trimmed,
            /// cleaned up, or its cut-off change finished by a repair.
            case fromMedia
            /// Not made: a repair finishes the change it was left by, then removes it (the journal).
            case finishedByRepair
            /// Made from the media only when asked (the transcript: `cravey transcribe`, which
            /// needs the optional transcriber); a repair leaves a missing one missing.
            case onRequest
        }

        /// What the part is called in messages (`write the waveform`).
        package let name: String
        package let folder: StoredFile.Folder
        /// What follows the clip's stem in its file's name, a dot first (`.peaks.dat`); nil for
        /// the media, named by its type and the state it is written in (``ClipFiles/media(_:finishing:)``).
        package let suffix: String?
        /// The types of clip that have one.
        package let types: Set<RecordingType>
        package let origin: Origin
        /// Whether a backup carries it, and a restore brings it back with its clip.
        package let isBackedUp: Bool
        package let remaking: Remaking
        /// How a derived part's bytes follow its clip's media when a trim keeps only a stretch of
        /// it (in seconds of the old media): the transcript's words move with the cut. Nil, or
        /// a result of nil, and after any other new media (a noise clean-up, or a repair that
        /// cannot tell which media the part was made from): a part made from the media is made
        /// again from the new one, and any other derived part goes. An original part stays.
        package let moved: (@Sendable (Data, ClosedRange<Double>) -> Data?)?
        /// The bytes to restore as this part of the clip (its row as the backup's record has
        /// it) from a backup's bytes; nil when they are not this part's, or not that clip's.
        /// A restore then leaves out a part made again from the media, and refuses the backup
        /// for any other (nothing would make it again, and a backup does not lie).
        package let restored: @Sendable (Data, Recording) -> Data?
        /// Whether a clip is searched by its words (``ClipSearch``): the store's transaction puts
        /// them in the index when it writes the part and takes them out when it removes it.
        package let isSearched: Bool

        package init(name: String, folder: StoredFile.Folder = .recordings, suffix: String?,
                     types: Set<RecordingType> = Set(RecordingType.allCases), origin: Origin, isBackedUp: Bool,
                     remaking: Remaking, moved: (@Sendable (Data, ClosedRange<Double>) -> Data?)? = nil, isSearched: Bool = false,
                     restored: @escaping @Sendable (Data, Recording) -> Data? = { data, _ in data }) {
            (self.name, self.folder, self.suffix, self.types) = (name, folder, suffix, types)
            (self.origin, self.isBackedUp, self.remaking, self.moved, self.restored) = (origin, isBackedUp, remaking, moved, restored)
            self.isSearched = isSearched
        }

        package static func == (left: Part, right: Part) -> Bool { left.name == right.name }
        package func hash(into hasher: inout Hasher) { hasher.combine(name) }
        package var description: String { name }

        package static let media = Part(name: "media", suffix: nil, origin: .original, isBackedUp: true, remaking: .never)
        package static let thumbnail = Part(name: "thumbnail", folder: .thumbnails, suffix: ".jpg", types: [.video],
                                            origin: .derived, isBackedUp: true, remaking: .fromMedia)
        package static let waveform = Part(name: "waveform", suffix: ".peaks.dat", origin: .derived, isBackedUp: true,
                                           remaking: .fromMedia, restored: { data, _ in Waveform(audiowaveformData: data).map { _ in data } })
        package static let copy = Part(name: "copy", suffix: ".json", origin: .derived, isBackedUp: true, remaking: .fromRow)
        /// Present while the clip's media is being replaced (``StoreTransaction/replaceMedia(of:with:)``):
        /// a crash leaves it for a repair, which makes what the clip owns again from the media
        /// then in place.
        package static let journal = Part(name: "journal", suffix: ".replacing", origin: .transient, isBackedUp: false,
                                          remaking: .finishedByRepair)

        /// The words said in the clip, with their times (``Transcript``): made by the transcriber
        /// when asked, shifted by a trim, dropped by a noise clean-up.
        package static let transcript = Part(name: "transcript", suffix: ".words.json", origin: .derived, isBackedUp: true,
                                             remaking: .onRequest, moved: { data, kept in
                                                 Transcript(data: data)?.trimmed(from: kept.lowerBound, to: kept.upperBound).data
                                             }, isSearched: true, restored: { data, clip in
                                                 Transcript(data: data)?.restored(for: clip.duration)?.data
                                             })

        /// The transcript as text to correct, a sentence a line, while a person's editor has it
        /// (`cravey transcript --edit`): inside the library, mode 0600, as the words are; removed
        /// when the editor is done, and with the clip.
        package static let correction = Part(name: "transcript being corrected", suffix: ".words.txt", origin: .transient,
                                             isBackedUp: false, remaking: .never)

        private static let listed = [media, thumbnail, waveform, copy, journal, transcript, correction]
        private static let tried = Locked<[Part]>([])

        /// Every part a clip may have, in the order a deletion takes them: media first.
        package static var all: [Part] { listed + tried.withLock { $0 } }

        /// Adds `part` to ``all`` for the rest of this process (a second call with it does
        /// nothing): how a new part is tried, by a test, before it joins the list above. Its name
        /// and its file's name must be its own: a suffix no other part has, that no media name
        /// begins with (a test's should be obscure, `.test-words.txt`: the other tests of the
        /// process see it too).
        package static func register(_ part: Part) {
            guard !all.contains(part) else { return }
            precondition(part.suffix.map { suffix in
                suffix.hasPrefix(".") && !suffix.contains("/") && !RecordingType.allCases.contains { suffix.hasPrefix(".\($0.fileExtension)") }
                    && !all.contains { $0.folder == part.folder && $0.suffix == suffix }
            } ?? false, "A part's file name must be its own: \(part.name) has \(part.suffix ?? "none").")
            tried.withLock { parts in
                if !parts.contains(part) { parts.append(part) }
            }
        }
    }

    /// The state of a clip's media file: finished, or being recorded or imported.
    package enum MediaState: String, Hashable, Sendable, CaseIterable {
        case finished = ""
        /// A recording in progress, or cut off by a crash: a repair registers it.
        case recording = ".partial"
        /// An import in progress: worth nothing once cut off (the person still has the file).
        case importing = ".importing"
    }

    /// The suffix of a media file's rewrite (index up front), until it replaces the file.
    static let finishingSuffix = ".finishing"
    static let deletingPrefix = ".deleting-"

    /// `audio_<uuid>`.
    package var stem: String { "\(type.rawValue)_\(id.description)" }

    /// The media file under its name in `state`; `finishing`: the rewrite of that file.
    package func media(_ state: MediaState = .finished, finishing: Bool = false) -> StoredFile {
        StoredFile(Part.media.folder, "\(stem).\(type.fileExtension)\(state.rawValue)\(finishing ? Self.finishingSuffix : "")")
    }

    /// The finished file of `part`; nil when a clip of its type has none (the thumbnail of an
    /// audio clip).
    package func file(_ part: Part) -> StoredFile? {
        guard part.types.contains(type) else { return nil }
        guard let suffix = part.suffix else { return media() }
        return StoredFile(part.folder, stem + suffix)
    }

    /// The finished files the clip may have, in the order a deletion takes them: media first.
    package var finished: [StoredFile] { Part.all.compactMap(file) }

    /// Every name a media file of the clip can have while it is written.
    package var writing: [StoredFile] {
        MediaState.allCases.flatMap { state in
            state == .finished ? [media(finishing: true)] : [media(state), media(state, finishing: true)]
        }
    }

    /// The name `file` has while its deletion is under way.
    static func marked(_ file: StoredFile) -> StoredFile { file.renamed(deletingPrefix + file.name) }

    /// A temporary name for an atomic write of `file`, unique to the write.
    static func temporary(for file: StoredFile) -> StoredFile { file.renamed(".\(file.name).\(UUID().uuidString).tmp") }
}

/// What a file in `Recordings/` or `Thumbnails/` is by cravey's naming scheme (``ClipFiles``).
/// A name cravey never gives (a person's file, a cover picture, a name that is not UTF-8) has
/// none: such files are never deleted, renamed or registered, only reported.
package struct StoredName: Hashable, Sendable {
    package var clip: ClipFiles
    package var part: ClipFiles.Part
    /// The media's state; `.finished` for the other parts.
    package var state = ClipFiles.MediaState.finished
    /// A media file's rewrite, not yet in place.
    package var finishing = false
    /// A marker before the name, if any.
    package var marker: Marker?

    package enum Marker: Hashable, Sendable {
        /// `.deleting-<name>`: a deletion under way; `original` is the name it had.
        case deleting(original: StoredFile)
        /// `.<name>.<UUID>.tmp`: an atomic write's temporary file.
        case temporary
    }

    /// Whether the file is being written: its writer holds a lock on it while it lives.
    package var isWriting: Bool { marker == nil && part == .media && (state != .finished || finishing) }

    /// Parses `file`'s name by the scheme; nil for a name cravey never gives.
    package init?(_ file: StoredFile) {
        let name = file.name
        if name.hasPrefix(ClipFiles.deletingPrefix) {
            let original = file.renamed(String(name.dropFirst(ClipFiles.deletingPrefix.count)))
            guard var parsed = StoredName(original), parsed.marker == nil else { return nil }
            parsed.marker = .deleting(original: original)
            self = parsed
            return
        }
        if name.hasPrefix("."), name.hasSuffix(".tmp") {
            let parts = name.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count >= 3, UUID(uuidString: String(parts[parts.count - 2])) != nil,
                  var parsed = StoredName(file.renamed(parts.dropLast(2).joined(separator: "."))), parsed.marker == nil
            else { return nil }
            parsed.marker = .temporary
            self = parsed
            return
        }
        let stem = name.prefix { $0 != "." }
        let (prefix, idText) = (stem.prefix { $0 != "_" }, stem.drop { $0 != "_" }.dropFirst())
        guard idText.count == 36, idText == idText.lowercased(), let id = RecordingID(String(idText)),
              let type = RecordingType(rawValue: String(prefix)) else { return nil }
        let clip = ClipFiles(id: id, type: type)
        self.clip = clip
        if let part = ClipFiles.Part.all.first(where: { $0 != .media && clip.file($0) == file }) {
            self.part = part
            return
        }
        guard file.folder == ClipFiles.Part.media.folder, let (state, finishing) = ClipFiles.MediaState.allCases.lazy.flatMap({ state in
            [false, true].map { (state, $0) }
        }).first(where: { clip.media($0.0, finishing: $0.1) == file }) else { return nil }
        part = .media
        self.state = state
        self.finishing = finishing
    }
}
