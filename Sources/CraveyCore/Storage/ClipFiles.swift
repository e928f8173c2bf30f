import Foundation

/// What one clip owns in the library, named once: its media (and the names it has while it is
/// written), a video's thumbnail, its waveform and its own copy of its words.
///
/// Delete, repair, import clean-up, the files being written and backup all go through this type,
/// and no other file spells a clip's file names: a new artefact is one more ``Part``. Names are
/// `<type>_<uuid>` (lowercase id) followed by what the part is:
///
/// | part | name |
/// |---|---|
/// | media | `Recordings/audio_<uuid>.m4a`, `Recordings/video_<uuid>.mp4` |
/// | media being written | the same + `.partial` (recording), `.importing` (import), and + `.finishing` for its rewrite |
/// | thumbnail | `Recordings/Thumbnails/video_<uuid>.jpg` (a video's) |
/// | waveform | `Recordings/<type>_<uuid>.peaks.dat` (audiowaveform's binary format) |
/// | copy | `Recordings/<type>_<uuid>.json` (its row, loudness and plays) |
/// | journal | `Recordings/<type>_<uuid>.replacing` (only while its media is replaced: trim, clean) |
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

    /// What a file of a clip is.
    package enum Part: Hashable, Sendable, CaseIterable {
        case media, thumbnail, waveform, copy
        /// Present while the clip's media is being replaced (``StoreTransaction/replaceMedia(of:with:)``):
        /// a crash leaves it for a repair, which makes what the clip owns again from the media
        /// then in place.
        case journal
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
        StoredFile(.recordings, "\(stem).\(type.fileExtension)\(state.rawValue)\(finishing ? Self.finishingSuffix : "")")
    }

    /// The finished file of `part`; nil for the thumbnail of an audio clip.
    package func file(_ part: Part) -> StoredFile? {
        switch part {
        case .media: media()
        case .thumbnail: type == .video ? StoredFile(.thumbnails, "\(stem).jpg") : nil
        case .waveform: StoredFile(.recordings, "\(stem).peaks.dat")
        case .copy: StoredFile(.recordings, "\(stem).json")
        case .journal: StoredFile(.recordings, "\(stem).replacing")
        }
    }

    /// The finished files the clip may have, in the order a deletion takes them: media first.
    package var finished: [StoredFile] { Part.allCases.compactMap(file) }

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
        switch file.folder {
        case .thumbnails where file == clip.file(.thumbnail):
            part = .thumbnail
        case .recordings where file == clip.file(.waveform):
            part = .waveform
        case .recordings where file == clip.file(.copy):
            part = .copy
        case .recordings where file == clip.file(.journal):
            part = .journal
        case .recordings:
            guard let (state, finishing) = ClipFiles.MediaState.allCases.lazy.flatMap({ state in
                [false, true].map { (state, $0) }
            }).first(where: { clip.media($0.0, finishing: $0.1) == file }) else { return nil }
            part = .media
            self.state = state
            self.finishing = finishing
        default:
            return nil
        }
    }
}
