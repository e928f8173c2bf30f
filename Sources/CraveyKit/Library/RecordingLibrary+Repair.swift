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
            package var id: UUID
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
            package var id: UUID
            package var filePath: String
            package var recorded: Int64
            package var actual: Int64
        }

        /// A row whose stored thumbnail path would leave the library or is a link.
        package struct Thumbnail: Codable, Sendable, Equatable {
            package var id: UUID
            package var title: String
            package var thumbnailPath: String
        }

        package var missingFiles: [Row] = []
        package var unsafePaths: [Row] = []
        package var unsafeThumbnails: [Thumbnail] = []
        /// Files in `Recordings/` cravey did not make (named otherwise, a name that is not UTF-8,
        /// shown with `\xNN` for the bad bytes, or bytes that are not what the name says): left
        /// where they are, for the person to move out or import.
        package var foreignFiles: [String] = []
        /// Temporary files of a write a crash cut off (a thumbnail's, say).
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

        /// What is wrong, one line each ("missing file: ..."); empty when the library is healthy.
        public var problems: [String] {
            var lines = databaseProblems.map { "database damaged: \($0)" }
            let short = { (id: UUID) in id.uuidString.lowercased().prefix(8) }
            for row in missingFiles { lines.append("missing file: \"\(row.title)\" (\(short(row.id))) expects \(row.filePath)") }
            for row in unsafePaths { lines.append("unsafe path: \"\(row.title)\" (\(short(row.id))) points outside the library: \(row.filePath)") }
            for thumbnail in unsafeThumbnails {
                lines.append("unsafe thumbnail: \"\(thumbnail.title)\" (\(short(thumbnail.id))) points outside the library: \(thumbnail.thumbnailPath)")
            }
            for path in foreignFiles { lines.append("not made by cravey: \(path)") }
            for path in interruptedWrites { lines.append("interrupted write: \(path)") }
            for path in orphanCopies { lines.append("copy of a clip that is gone: \(path)") }
            for path in orphanWaveforms { lines.append("waveform of a clip that is gone: \(path)") }
            for orphan in orphanFiles {
                let state = orphan.playable ? "playable, \(RecordingMetadata.displayDuration(orphan.duration ?? 0))" : "cannot be played"
                lines.append("file with no entry: \(orphan.path) (\(FileStorageManager.formatBytes(orphan.bytes)), \(state))")
            }
            for path in orphanThumbnails { lines.append("thumbnail with no entry: \(path)") }
            for mismatch in sizeMismatches {
                lines.append("size mismatch: \(mismatch.filePath) is \(mismatch.actual) bytes, the entry says \(mismatch.recorded)")
            }
            for path in interruptedDeletions { lines.append("interrupted deletion: \(path)") }
            for path in interruptedImports { lines.append("interrupted import: \(path)") }
            return lines
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
            databaseProblems.isEmpty && missingFiles.isEmpty && unsafePaths.isEmpty && unsafeThumbnails.isEmpty && foreignFiles.isEmpty && orphanFiles.isEmpty && orphanThumbnails.isEmpty
                && sizeMismatches.isEmpty && interruptedDeletions.isEmpty && interruptedImports.isEmpty && interruptedWrites.isEmpty
                && orphanCopies.isEmpty && orphanWaveforms.isEmpty
        }
    }

    /// Checks that the library's rows and files agree, changing nothing; on a thread of its own
    /// (probing every file blocks).
    public func examine() async throws -> RepairReport {
        try await onDedicatedThread(named: "cravey.doctor") { try self.examine(repair: false, deleteUnplayable: false) }
    }

    /// Checks that the library's rows and files agree and repairs what does not: registers
    /// playable files that have no row as "Recovered <date>", removes rows whose file is gone,
    /// fixes sizes, removes orphan thumbnails and waveforms, finishes or undoes interrupted
    /// deletions and imports, and measures clips whose loudness or waveform is missing.
    /// `deletingUnplayable` also deletes orphan files that cannot be played. Returns what it
    /// found and did.
    public func repair(deletingUnplayable: Bool = false) async throws -> RepairReport {
        try await onDedicatedThread(named: "cravey.doctor") {
            try self.examine(repair: true, deleteUnplayable: deletingUnplayable)
        }
    }

    /// Examines the library; with `repair`, fixes what it found. Blocking.
    ///
    /// It holds the writers' lock throughout: a clip another process is saving (rename, then
    /// row) is seen saved or not yet begun, never as a file without its row. A `.partial` no
    /// process holds locked is a crash leftover at once: a live one is locked from its creation
    /// (see "Several processes, one library" in the README).
    package func examine(repair: Bool, deleteUnplayable: Bool) throws -> RepairReport {
        guard storage.exists else { return RepairReport() }
        // A library with no database yet has no writer to keep out: looking makes nothing.
        guard storage.isStored || repair else { return try examineLocked(repair: false, deleteUnplayable: false) }
        return try storage.exclusively { try examineLocked(repair: repair, deleteUnplayable: deleteUnplayable) }
    }

    private func examineLocked(repair: Bool, deleteUnplayable: Bool) throws -> RepairReport {
        var report = RepairReport()
        // A damaged database is reported and nothing else is done: rows read from it cannot be
        // trusted, and a repair built on them could delete what it should keep.
        do {
            report.databaseProblems = try repository.integrityProblems()
        } catch {
            report.databaseProblems = [CraveyError(database: error)?.message ?? "\(error)"]
        }
        guard report.databaseProblems.isEmpty else { return report }
        let rows = try repository.fetchAll()
        let referenced = Set(rows.flatMap { row in
            [row.filePath, row.thumbnailPath, FileStorageManager.metadataPath(for: row.id, type: row.type),
             FileStorageManager.waveformPath(for: row.id, type: row.type)].compactMap { $0 }
        })

        for row in rows {
            if let thumbnail = row.thumbnailPath, (try? storage.absoluteURL(for: thumbnail)) == nil {
                report.unsafeThumbnails.append(.init(id: row.id, title: row.title, thumbnailPath: thumbnail))
            }
            let entry = RepairReport.Row(id: row.id, title: row.title, filePath: row.filePath)
            guard let url = try? storage.absoluteURL(for: row.filePath) else {
                report.unsafePaths.append(entry)
                continue
            }
            guard let size = storage.size(of: url) else {
                report.missingFiles.append(entry)
                continue
            }
            if size != row.fileSize {
                report.sizeMismatches.append(.init(id: row.id, filePath: row.filePath, recorded: row.fileSize, actual: size))
            }
            if storage.size(of: storage.url(of: FileStorageManager.metadataPath(for: row.id, type: row.type))) == nil {
                report.missingCopies.append(entry)
            }
            // A video without sound has nothing to measure; looking costs one open of its file.
            let missingWaveform = !storage.holdsWaveform(of: row.id, type: row.type)
            guard row.loudness == nil || missingWaveform,
                  row.type == .audio || (try? MediaProbe.info(of: storage.media(url)).audioStream) != nil else { continue }
            if row.loudness == nil { report.missingLoudness.append(entry) }
            if missingWaveform { report.missingWaveforms.append(entry) }
        }

        let live = storage.liveStems()
        let files = storage.storedFilesWithSizes()
        // The clips whose media is here, under any name but an interrupted import's (which goes):
        // their copies go with them.
        let mediaStems = Set(files.compactMap { file -> String? in
            let name = URL(fileURLWithPath: file.path).lastPathComponent
            guard case .media(_, _, let suffix) = FileStorageManager.storedName(name, in: .recordings),
                  suffix != FileStorageManager.importingSuffix else { return nil }
            return FileStorageManager.stem(of: name)
        })
        for (path, bytes) in files where !referenced.contains(path) {
            let url = storage.url(of: path)
            let name = url.lastPathComponent
            let folder: FileStorageManager.Folder = path.hasPrefix(FileStorageManager.thumbnailsFolder + "/") ? .thumbnails : .recordings
            // What cravey did not name is not cravey's: reported, never deleted or registered.
            guard let stored = FileStorageManager.storedName(name, in: folder) else {
                report.foreignFiles.append(path)
                continue
            }
            if live.contains(FileStorageManager.stem(of: name)) { continue }  // another process is making it
            switch stored {
            case .media(_, _, let suffix) where suffix.hasSuffix(FileStorageManager.finishingSuffix):
                continue  // the unfinished copy of a rewrite a crash cut off; its original is kept
            case .media(_, _, FileStorageManager.importingSuffix):
                report.interruptedImports.append(path)
            case .deleting:
                report.interruptedDeletions.append(path)
            case .temporary:
                report.interruptedWrites.append(path)
            case .thumbnail:
                report.orphanThumbnails.append(path)
            case .metadata:
                // With its media, it is the orphan's own copy, used when the orphan is registered.
                if !mediaStems.contains(FileStorageManager.stem(of: name)) { report.orphanCopies.append(path) }
            case .waveform:
                // With its media, it is the orphan's, made again when the orphan is registered.
                if !mediaStems.contains(FileStorageManager.stem(of: name)) { report.orphanWaveforms.append(path) }
            case .media(let type, _, _):
                // Only the file's faults make it unplayable; running out of memory is thrown.
                let duration: Double?
                do { duration = try MediaProbe.playableDuration(of: storage.media(url)) } catch is CraveyError { duration = nil }
                if duration != nil, !holds(type, storage.media(url)) {
                    report.foreignFiles.append(path)  // its bytes are not what its name says
                } else {
                    report.orphanFiles.append(.init(path: path, bytes: bytes, playable: duration != nil, duration: duration))
                }
            }
        }
        // A name that is not UTF-8 cravey never gives.
        report.foreignFiles += storage.unreadableNames().map { file in
            (file.folder == .thumbnails ? FileStorageManager.thumbnailsFolder : FileStorageManager.recordingsFolder)
                + "/" + FileStorageManager.visibleName(file.name)
        }

        if repair { try self.repair(&report, referenced: referenced, deleteUnplayable: deleteUnplayable) }
        return report
    }

    /// Whether `media` holds what a file of `type` is named for: an MP4 with sound and no
    /// picture (`.m4a`), or one with a picture (`.mp4`).
    private func holds(_ type: RecordingType, _ media: MediaLocation) -> Bool {
        guard let info = try? MediaProbe.info(of: media), info.formatName.contains("mp4") else { return false }
        return type == .video ? info.videoStream != nil : info.videoStream == nil && info.audioStream != nil
    }

    /// Repairs what `report` found; `referenced` holds every media and thumbnail path the rows name.
    private func repair(_ report: inout RepairReport, referenced: Set<String>, deleteUnplayable: Bool) throws {
        var restored: Set<String> = []

        for path in report.interruptedDeletions {
            let url = storage.url(of: path)
            // The path it had: the marked name in the same folder, without the prefix.
            let original = path.replacingOccurrences(of: "/" + FileStorageManager.deletingPrefix, with: "/")
            if referenced.contains(original) {
                storage.unmark(url)
                restored.insert(original)
                report.repairs.append("Restored \(original): its deletion was interrupted before the row was removed.")
            } else {
                try storage.remove(url)
                report.repairs.append("Finished deleting \(original).")
            }
        }
        for path in report.interruptedImports { try removeLeftover(path, "an import that was cut off", into: &report) }
        for path in report.interruptedWrites { try removeLeftover(path, "a write that was cut off", into: &report) }
        for row in report.missingFiles + report.unsafePaths where !restored.contains(row.filePath) {
            _ = try repository.delete(id: row.id)
            report.repairs.append("Removed the entry \"\(row.title)\" (\(row.id.uuidString.lowercased())): its media \(row.filePath) is gone.")
        }
        for thumbnail in report.unsafeThumbnails {
            try repository.removeThumbnail(of: thumbnail.id)
            report.repairs.append("Removed the thumbnail path \(thumbnail.thumbnailPath) of \"\(thumbnail.title)\" (\(thumbnail.id.uuidString.lowercased())): it pointed outside the library.")
        }
        for mismatch in report.sizeMismatches {
            try repository.updateFileSize(of: mismatch.id, to: mismatch.actual)
            report.repairs.append("Updated the size of \(mismatch.filePath) to \(mismatch.actual) bytes.")
        }
        for path in report.orphanThumbnails {
            try storage.remove(storage.absoluteURL(for: path))
            report.repairs.append("Deleted the thumbnail \(path), which no recording uses.")
        }
        // Loudness and waveform from one decoding of each clip that lacks either.
        let unmeasured = Set(report.missingLoudness.map(\.id)), unpictured = Set(report.missingWaveforms.map(\.id))
        for row in report.missingLoudness + report.missingWaveforms.filter({ !unmeasured.contains($0.id) }) {
            let (loudness, waveform) = (unmeasured.contains(row.id), unpictured.contains(row.id))
            do {
                guard let recording = try repository.fetch(id: row.id) else { continue }
                let measured = try measureSound(of: recording, loudness: loudness, waveform: waveform)
                if let measurement = measured.loudness {
                    try repository.updateLoudness(of: row.id, to: measurement)
                    report.measuredLoudness += 1
                }
                if let picture = measured.waveform {
                    do {
                        try storage.keepWaveform(picture, of: recording)
                        report.measuredWaveforms += 1
                    } catch let error as CraveyError {
                        report.loudnessFailures.append("Could not keep the waveform of \"\(row.title)\" (\(row.id.uuidString.lowercased())): \(error.message)")
                    }
                }
            } catch let error as CraveyError {
                let what = loudness && waveform ? "the loudness and waveform" : loudness ? "the loudness" : "the waveform"
                report.loudnessFailures.append("Could not measure \(what) of \"\(row.title)\" (\(row.id.uuidString.lowercased())): \(error.message)")
            }
        }
        for row in report.missingCopies {
            guard let recording = try repository.fetch(id: row.id) else { continue }
            try storage.keep(recording, plays: try repository.playEvents(of: row.id))
            report.repairs.append("Kept a copy of the words of \"\(row.title)\" beside its media.")
        }
        for orphan in report.orphanFiles {
            if orphan.playable {
                let (recording, restored) = try recover(orphan)
                report.repairs.append("Registered \(orphan.path) as \"\(recording.title)\" (\(recording.id.uuidString.lowercased()))"
                                      + (restored ? ", with its words and plays from its own copy." : "."))
            } else if deleteUnplayable {
                try storage.remove(storage.absoluteURL(for: orphan.path))
                report.repairs.append("Deleted \(orphan.path), which cannot be played.")
            } else if orphan.path.hasSuffix(FileStorageManager.partialSuffix),
                      orphan.bytes == 0 || MediaProbe.holdsNoPacket(storage.media(storage.url(of: orphan.path))) {
                try storage.remove(storage.absoluteURL(for: orphan.path))
                report.repairs.append("Deleted \(orphan.path), a recording cut off before its first sound: it held nothing.")
            }
        }
        for path in report.orphanCopies { try removeLeftover(path, "the copy of a clip that is gone", into: &report) }
        for path in report.orphanWaveforms { try removeLeftover(path, "the waveform of a clip that is gone", into: &report) }
    }

    /// Registers a playable orphan, named by cravey's scheme, of the type and (unless a row has
    /// it) the id its name says: as its own copy says it was (its words, date, plays, loudness),
    /// or, without one, titled "Recovered <date>". Returns the row and whether it was restored.
    /// Deletes a leftover the examination found (one already gone is no error) and says why.
    private func removeLeftover(_ path: String, _ why: String, into report: inout RepairReport) throws {
        try storage.remove(storage.url(of: path))
        report.repairs.append("Deleted \(path), \(why).")
    }

    private func recover(_ orphan: RepairReport.Orphan) throws -> (Recording, Bool) {
        let url = storage.url(of: orphan.path)
        guard case .media(let type, let named, _) = FileStorageManager.storedName(url.lastPathComponent, in: .recordings) else {
            throw CraveyError(.other, "\(orphan.path) is not named as a recording.")
        }
        let id = (try? repository.fetch(id: named)) == nil ? named : UUID()
        let modified = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]) as? Date ?? Date()
        let title = "Recovered " + String(RecordingMetadata.automaticTitle(for: modified).dropFirst("Recording ".count))
        // A file a crash cut off is still fragmented: the finisher rewrites it when it can.
        let clip = ClipFinisher.Clip(file: url, id: id, type: type, fragmented: orphan.path.hasSuffix(FileStorageManager.partialSuffix))
        if let stored = storage.storedClip(id, type: type) {
            return (try ClipFinisher(storage: storage).finish(clip, restoring: stored.recording, plays: stored.plays), true)
        }
        return (try ClipFinisher(storage: storage).finish(clip, metadata: try RecordingMetadata(title: title), createdAt: modified), false)
    }
}
