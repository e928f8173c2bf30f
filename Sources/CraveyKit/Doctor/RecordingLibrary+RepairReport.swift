import Foundation

extension RecordingLibrary {
    /// What ``examine()`` and ``repair(deletingUnplayable:)`` found, and what a repair did.
    ///
    /// It finds rows whose media file is missing, rows whose path would leave the library, files
    /// under `Recordings/` with no row (a recording cut off by a crash, for example), thumbnails with
    /// no row, sizes that disagree, and deletions a crash interrupted. Repairing registers playable
    /// orphans as recordings titled "Recovered <date>", removes rows whose media is gone, fixes
    /// sizes, removes orphan thumbnails, and deletes unplayable fragments only when asked (a
    /// recording fragment holding not one packet, cut off before its first sound, goes regardless).
    ///
    /// It also lists clips whose loudness was never measured, and clips with sound without a
    /// waveform (saved before either was kept, or whose measurement failed); repairing measures
    /// them, both in one decoding. That is no fault: it leaves the library healthy either way,
    /// since playback measures such a clip the first time it plays, and ``waveform(of:)`` makes
    /// its waveform the first time it is asked for.
    public struct RepairReport: Codable, Sendable, Equatable {
        /// A row whose media file is missing, or whose path would leave the library.
        package struct Row: Codable, Sendable, Equatable {
            package var id: RecordingID
            package var title: String
            package var filePath: String
        }
        /// A media file under `Recordings/` that no row points at.
        package struct Orphan: Codable, Sendable, Equatable {
            package var path: String
            package var bytes: Int64
            package var playable: Bool
            /// Seconds, for playable files.
            package var duration: Double?
        }
        package struct SizeMismatch: Codable, Sendable, Equatable {
            package var id: RecordingID
            package var filePath: String
            package var recorded: Int64
            package var actual: Int64
        }

        /// A row whose stored thumbnail path would leave the library or is a link.
        package struct Thumbnail: Codable, Sendable, Equatable {
            package var id: RecordingID
            package var title: String
            package var thumbnailPath: String
        }

        /// A clip whose media does not read to its end as it says (damaged, zeroed or cut short
        /// after its first seconds): what decoding it found, as a phrase after "it".
        package struct DamagedMedia: Codable, Sendable, Equatable {
            package var id: RecordingID
            package var title: String
            package var filePath: String
            package var damage: String
        }

        package var missingFiles: [Row] = []
        /// Clips whose media does not decode to its end. Nothing repairs them: what decodes still
        /// plays; a backup holds the clip whole, or `delete` removes it.
        package var damagedMedia: [DamagedMedia] = []
        package var unsafePaths: [Row] = []
        package var unsafeThumbnails: [Thumbnail] = []
        /// Files in `Recordings/` cravey did not make (named otherwise, a name that is not UTF-8,
        /// shown with `\xNN` for the bad bytes, or bytes that are not what the name says): left
        /// where they are, for the person to move out or import.
        package var foreignFiles: [String] = []
        /// A row whose values no clip has (a date out of range, a length that is no length, words
        /// `edit` refuses): its id, title and what is wrong, one "field: why" each.
        package struct BadValues: Codable, Sendable, Equatable {
            package var id: RecordingID
            package var title: String
            package var problems: [String]
        }

        /// Rows whose values no clip has. A repair sets the numbers and dates it can tell from
        /// the clip's file and plays; words are the person's to change (`edit`).
        package var badValues: [BadValues] = []
        /// Clips whose words file (``Row/filePath``) is not a transcript cravey reads (too large,
        /// a value no transcript has), or holds a word said more than a second past the clip's
        /// end (``Transcript/restored(for:)``). A repair cuts readable words to the clip's
        /// length, and deletes unreadable ones (`transcribe` hears them again).
        package var untrustedTranscripts: [Row] = []
        /// Rows that cannot be read at all (an id that is no UUID): every other row works; these
        /// are left for a person, with their ids.
        package var unreadableRows: [String] = []
        /// Files a repair left where they are, and why (an orphan whose copy is not its record,
        /// one that could not be registered): everything else was repaired.
        package var left: [String] = []
        /// Journals of a clip's media being replaced (a trim, a clean-up) a crash cut off.
        package var interruptedReplacements: [String] = []
        /// Temporary files of a write a crash cut off (a thumbnail's, say), and the words a
        /// `transcript --edit` cut off left in plain text (`.words.txt`).
        package var interruptedWrites: [String] = []
        /// What SQLite finds wrong with `library.sqlite`; nothing else is examined then.
        package var databaseProblems: [String] = []
        /// Clips without their own copy of their words (saved before clips kept one): no fault,
        /// but until a repair writes it, a damaged database would cost their words.
        package var missingCopies: [Row] = []
        /// Copies of clips with no row and no media: of clips that are gone.
        package var orphanCopies: [String] = []
        /// Waveform files with no row and no media: of clips that are gone.
        package var orphanWaveforms: [String] = []
        /// Files of any other part of a clip (``ClipFiles/Part/all``) with no row and no media:
        /// of clips that are gone.
        package var orphanParts: [String] = []
        package var orphanFiles: [Orphan] = []
        package var orphanThumbnails: [String] = []
        package var sizeMismatches: [SizeMismatch] = []
        package var interruptedDeletions: [String] = []
        /// Clips with audio whose loudness is not measured yet (not a fault, see ``isHealthy``).
        package var missingLoudness: [Row] = []
        /// How many clips a repair measured.
        public var measuredLoudness = 0
        /// Clips with sound whose waveform is not stored yet, or does not read as one (not a
        /// fault, see ``isHealthy``).
        package var missingWaveforms: [Row] = []
        /// How many waveforms a repair made.
        public var measuredWaveforms = 0
        /// Clips a repair could not measure (their loudness or their waveform), and why, one
        /// sentence each.
        public var loudnessFailures: [String] = []
        /// `.importing` files no process holds: imports cut off by a crash, worth nothing.
        package var interruptedImports: [String] = []
        /// What a repair did, one sentence each.
        public var repairs: [String] = []
        /// Whether the word index (``ClipSearch``) is missing or does not hold what the rows
        /// and transcripts say: a repair makes it again.
        package var searchIndexOutOfStep = false

        /// Reports `path`, the file of a clip's `part` whose clip is gone (no row, no media):
        /// a copy or a waveform in the field each has always had, any other part in ``orphanParts``.
        package mutating func addOrphan(_ path: String, of part: ClipFiles.Part) {
            switch part {
            case .copy: orphanCopies.append(path)
            case .waveform: orphanWaveforms.append(path)
            default: orphanParts.append(path)
            }
        }

        /// What is wrong, one line each ("missing file: ..."); empty when the library is healthy.
        public var problems: [String] {
            var lines = databaseProblems.map { "database damaged: \($0)" }
            let short = { (id: RecordingID) in id.description.prefix(8) }
            for row in missingFiles { lines.append("missing file: \"\(row.title)\" (\(short(row.id))) expects \(row.filePath)") }
            for clip in damagedMedia {
                lines.append("damaged media: \"\(clip.title)\" (\(short(clip.id))): \(clip.filePath) \(clip.damage)")
            }
            for row in unsafePaths { lines.append("unsafe path: \"\(row.title)\" (\(short(row.id))) points outside the library: \(row.filePath)") }
            for row in badValues {
                lines.append("impossible values: \"\(row.title)\" (\(short(row.id))): " + row.problems.joined(separator: "; "))
            }
            for row in untrustedTranscripts {
                lines.append("words not the clip's: \"\(row.title)\" (\(short(row.id))): \(row.filePath) is not a transcript cravey reads, or holds words said past its end")
            }
            for id in unreadableRows { lines.append("unreadable row: the id '\(id)' is no clip's (a database edited by hand?)") }
            for thumbnail in unsafeThumbnails {
                lines.append("unsafe thumbnail: \"\(thumbnail.title)\" (\(short(thumbnail.id))) points outside the library: \(thumbnail.thumbnailPath)")
            }
            let files = { (label: String, paths: [String]) in paths.map { "\(label): \($0)" } }
            lines += files("not made by cravey", foreignFiles) + files("interrupted write", interruptedWrites)
                + files("copy of a clip that is gone", orphanCopies) + files("waveform of a clip that is gone", orphanWaveforms)
                + files("file of a clip that is gone", orphanParts)
            for orphan in orphanFiles {
                let state = orphan.playable ? "playable, \(RecordingMetadata.displayDuration(orphan.duration ?? 0))" : "cannot be played"
                lines.append("file with no entry: \(orphan.path) (\(ByteCount.text(orphan.bytes)), \(state))")
            }
            lines += files("thumbnail with no entry", orphanThumbnails)
            for mismatch in sizeMismatches {
                lines.append("size mismatch: \(mismatch.filePath) is \(mismatch.actual) bytes, the entry says \(mismatch.recorded)")
            }
            lines += files("interrupted deletion", interruptedDeletions) + files("interrupted import", interruptedImports)
                + files("interrupted change of a clip", interruptedReplacements)
            if searchIndexOutOfStep {
                lines.append("search index out of step: it does not hold the titles, notes and words of the clips as they are")
            }
            return lines + left
        }

        /// How many clips with sound have no loudness measured yet (no fault: the first play
        /// measures it, and so does a repair).
        public var unmeasuredLoudness: Int { missingLoudness.count }

        /// How many clips with sound have no waveform stored yet (no fault: the first use makes
        /// it, and so does a repair).
        public var unmeasuredWaveforms: Int { missingWaveforms.count }

        /// Whether `library.sqlite` itself is damaged (then nothing else was examined or repaired).
        public var databaseIsDamaged: Bool { !databaseProblems.isEmpty }

        /// No fault found. Loudness not measured yet is none: the first play measures it; nor is
        /// a waveform not made yet: the first use makes it.
        public var isHealthy: Bool {
            databaseProblems.isEmpty && missingFiles.isEmpty && damagedMedia.isEmpty && unsafePaths.isEmpty && badValues.isEmpty && untrustedTranscripts.isEmpty && unreadableRows.isEmpty && unsafeThumbnails.isEmpty && foreignFiles.isEmpty && orphanFiles.isEmpty && orphanThumbnails.isEmpty
                && sizeMismatches.isEmpty && interruptedDeletions.isEmpty && interruptedImports.isEmpty && interruptedWrites.isEmpty && interruptedReplacements.isEmpty
                && orphanCopies.isEmpty && orphanWaveforms.isEmpty && orphanParts.isEmpty && !searchIndexOutOfStep
        }
    }
}
