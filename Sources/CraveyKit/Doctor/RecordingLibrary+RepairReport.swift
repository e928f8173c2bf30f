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
    /// since playback measures such a clip the first time it plays, and
    /// ``LibraryAnalysis/waveform(of:)`` makes its waveform the first time it is asked for.
    ///
    /// Each thing found is one ``Finding`` of a ``Finding/Kind``: a new check adds a kind, not a
    /// field. `cravey doctor --json` prints the report as it is stored (the manual,
    /// docs/reference.md, gives its shape).
    public struct RepairReport: Codable, Sendable, Equatable {
        /// One thing the doctor found: what kind of thing, the clip or file it is about, what is
        /// wrong beyond what its kind says, and what a repair did about it.
        package struct Finding: Codable, Sendable, Equatable {
            /// What was found, in the order the report lists them (``RepairReport/problems``).
            package enum Kind: String, Codable, Sendable, CaseIterable {
                /// What SQLite finds wrong with `library.sqlite` (``problem``); nothing else is
                /// examined then.
                case damagedDatabase
                /// A row whose media file is missing.
                case missingFile
                /// A clip whose media does not read to its end as it says (damaged, zeroed or cut
                /// short after its first seconds): ``problem`` says what decoding found, as a
                /// phrase after "it". Nothing repairs it: what decodes still plays; a backup
                /// holds the clip whole, or `delete` removes it.
                case damagedMedia
                /// A row whose path would leave the library.
                case unsafePath
                /// A row whose values no clip has (a date out of range, a length that is no
                /// length, words `edit` refuses): ``problem`` is one "field: why" each, joined by
                /// "; ". A repair sets the numbers and dates it can tell from the clip's file and
                /// plays; words are the person's to change (`edit`).
                case badValues
                /// A clip whose words file (``path``) is not a transcript cravey reads (too large,
                /// a value no transcript has), or holds a word said more than a second past the
                /// clip's end (``Transcript/restored(for:)``). A repair cuts readable words to the
                /// clip's length, and deletes unreadable ones (`transcribe` hears them again).
                case untrustedTranscript
                /// A row that cannot be read at all (an id that is no UUID, in ``problem``):
                /// every other row works; it is left for a person.
                case unreadableRow
                /// A row whose stored thumbnail path (``path``) would leave the library or is a link.
                case unsafeThumbnail
                /// A file in `Recordings/` cravey did not make (named otherwise, a name that is not
                /// UTF-8, shown with `\xNN` for the bad bytes, or bytes that are not what the name
                /// says; a link or a folder, said in ``problem``): left where it is, for the
                /// person to move out or import.
                case foreignFile
                /// A temporary file of a write a crash cut off (a thumbnail's, say), or the words a
                /// `transcript --edit` cut off left in plain text (`.words.txt`).
                case interruptedWrite
                /// The copy of a clip with no row and no media: of a clip that is gone.
                case orphanCopy
                /// The waveform file of a clip with no row and no media.
                case orphanWaveform
                /// A file of any other part of a clip (``ClipFiles/Part/all``) with no row and no media.
                case orphanPart
                /// A media file under `Recordings/` that no row points at and that plays
                /// (``problem``: its size and length): a repair registers it.
                case orphanFile
                /// The same, a file that cannot be played: a repair deletes it only when asked
                /// (or when it is a recording cut off before its first sound).
                case unplayableFile
                /// A thumbnail no row names.
                case orphanThumbnail
                /// A media file whose size is not its row's (``problem``).
                case sizeMismatch
                /// A deletion a crash cut off, its file renamed aside.
                case interruptedDeletion
                /// An `.importing` file no process holds: an import cut off by a crash, worth nothing.
                case interruptedImport
                /// The journal of a clip's media being replaced (a trim, a clean-up) a crash cut off.
                case interruptedReplacement
                /// The word index (``ClipSearch``) is missing or does not hold what the rows and
                /// transcripts say: a repair makes it again.
                case searchIndexOutOfStep
                /// A file a repair left where it is, and why (``problem``: an orphan whose copy is
                /// not its record, one that could not be registered).
                case notRepaired
                /// A clip without its own copy of its words (saved before clips kept one): no
                /// fault, but until a repair writes it, a damaged database would cost its words.
                case missingCopy
                /// A clip with audio whose loudness is not measured yet (no fault, see ``isFault``).
                case missingLoudness
                /// A clip with sound whose waveform is not stored yet, or does not read as one
                /// (no fault).
                case missingWaveform

                /// Whether it makes the library unhealthy (``RepairReport/isHealthy``): all but
                /// what a clip has not been given yet (its copy, loudness or waveform), which
                /// leaves the library healthy, since the first use makes it.
                package var isFault: Bool { ![.missingCopy, .missingLoudness, .missingWaveform].contains(self) }
            }

            package var kind: Kind
            /// The clip it is about, when it is about one.
            package var id: RecordingID?
            package var title: String?
            /// The file it is about, relative to the library folder: the clip's media, its words
            /// or its thumbnail, or a file no row names.
            package var path: String?
            /// What is wrong beyond what ``kind`` says (see each kind).
            package var problem: String?
            /// What a repair did about it, one sentence; nil when nothing was done.
            package var repair: String?

            package init(_ kind: Kind, id: RecordingID? = nil, title: String? = nil, path: String? = nil, problem: String? = nil) {
                self.kind = kind
                self.id = id
                self.title = title
                self.path = path
                self.problem = problem
            }

            /// The line the report shows for it ("missing file: ..."), as `cravey doctor` prints it.
            package var line: String {
                let clip = "\"\(title ?? "")\" (\(id.map { String($0.description.prefix(8)) } ?? ""))"
                let file = path ?? "", what = problem ?? ""
                switch kind {
                case .damagedDatabase: return "database damaged: \(what)"
                case .missingFile: return "missing file: \(clip) expects \(file)"
                case .damagedMedia: return "damaged media: \(clip): \(file) \(what)"
                case .unsafePath: return "unsafe path: \(clip) points outside the library: \(file)"
                case .badValues: return "impossible values: \(clip): \(what)"
                case .untrustedTranscript:
                    return "words not the clip's: \(clip): \(file) is not a transcript cravey reads, or holds words said past its end"
                case .unreadableRow: return "unreadable row: the id '\(what)' is no clip's (a database edited by hand?)"
                case .unsafeThumbnail: return "unsafe thumbnail: \(clip) points outside the library: \(file)"
                case .foreignFile: return "not made by cravey: \(file)" + (problem.map { " (\($0))" } ?? "")
                case .interruptedWrite: return "interrupted write: \(file)"
                case .orphanCopy: return "copy of a clip that is gone: \(file)"
                case .orphanWaveform: return "waveform of a clip that is gone: \(file)"
                case .orphanPart: return "file of a clip that is gone: \(file)"
                case .orphanFile, .unplayableFile: return "file with no entry: \(file) (\(what))"
                case .orphanThumbnail: return "thumbnail with no entry: \(file)"
                case .sizeMismatch: return "size mismatch: \(file) \(what)"
                case .interruptedDeletion: return "interrupted deletion: \(file)"
                case .interruptedImport: return "interrupted import: \(file)"
                case .interruptedReplacement: return "interrupted change of a clip: \(file)"
                case .searchIndexOutOfStep:
                    return "search index out of step: it does not hold the titles, notes and words of the clips as they are"
                case .notRepaired: return what
                case .missingCopy, .missingLoudness, .missingWaveform: return "\(kind.rawValue): \(clip)"
                }
            }

            /// Where it comes in ``RepairReport/problems``: by kind, a playable orphan and an
            /// unplayable one together, in the order they were found.
            var rank: Int {
                let kind = self.kind == .unplayableFile ? .orphanFile : self.kind
                return Kind.allCases.firstIndex(of: kind)!
            }
        }

        /// Everything found, in the order it was found.
        package var findings: [Finding] = []
        /// What a repair did, one sentence each, in the order it did it (each also in its
        /// finding's ``Finding/repair``).
        public var repairs: [String] = []
        /// How many clips a repair measured.
        public var measuredLoudness = 0
        /// How many waveforms a repair made.
        public var measuredWaveforms = 0
        /// Clips a repair could not measure (their loudness or their waveform), and why, one
        /// sentence each.
        public var loudnessFailures: [String] = []

        /// The findings of one kind, in the order they were found.
        package func findings(_ kind: Finding.Kind) -> [Finding] {
            findings.filter { $0.kind == kind }
        }

        /// Where the findings of `kinds` are in ``findings``: those of the first kind, then of the
        /// next, each in the order found (the order a repair takes them in).
        package func indices(_ kinds: Finding.Kind...) -> [Int] {
            kinds.flatMap { kind in findings.indices.filter { findings[$0].kind == kind } }
        }

        /// Adds what was found.
        package mutating func add(_ finding: Finding) {
            findings.append(finding)
        }

        /// Says what a repair did: about the finding at `index`, or (nil) about a file no finding
        /// names (a part of a media file the repair deleted).
        package mutating func repaired(_ index: Int?, _ what: String) {
            if let index { findings[index].repair = what }
            repairs.append(what)
        }

        /// What is wrong, one line each ("missing file: ..."), by kind; empty when the library is
        /// healthy.
        public var problems: [String] {
            findings.enumerated().filter { $0.element.kind.isFault }
                .sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }.map(\.element.line)
        }

        /// How many clips with sound have no loudness measured yet (no fault: the first play
        /// measures it, and so does a repair).
        public var unmeasuredLoudness: Int { findings(.missingLoudness).count }

        /// How many clips with sound have no waveform stored yet (no fault: the first use makes
        /// it, and so does a repair).
        public var unmeasuredWaveforms: Int { findings(.missingWaveform).count }

        /// Whether `library.sqlite` itself is damaged (then nothing else was examined or repaired).
        public var databaseIsDamaged: Bool { findings.contains { $0.kind == .damagedDatabase } }

        /// No fault found. Loudness not measured yet is none: the first play measures it; nor is
        /// a waveform not made yet: the first use makes it.
        public var isHealthy: Bool { !findings.contains { $0.kind.isFault } }
    }
}
