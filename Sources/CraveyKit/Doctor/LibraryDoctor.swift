import Foundation

/// The doctor: it examines a library (its rows and files agree, every clip's media decodes to
/// its end, its words and word index are the clip's) and, asked to, repairs what it found. A
/// capability reached from the door (``RecordingLibrary/doctor``; the door's public
/// ``RecordingLibrary/examine()`` and ``RecordingLibrary/repair(deletingUnplayable:)`` run it on a
/// thread of their own), not a part of it: its steps are its own.
package struct LibraryDoctor: Sendable {
    package typealias RepairReport = RecordingLibrary.RepairReport

    package let library: RecordingLibrary
    private var store: LibraryStore { library.store }

    /// Examines the library; with `repair`, fixes what it found. Blocking.
    ///
    /// The rows and the folder are looked at together while no change is under way
    /// (``LibraryStore/readSettled(_:)``): a clip another process is saving is seen saved or not
    /// yet begun, never as a file without its row. Files are then probed without the lock, and
    /// each repair is a transaction of its own that checks again what it changes: another
    /// process may have changed the library meanwhile, and the repair never undoes that.
    package func examine(repair: Bool, deleteUnplayable: Bool) throws -> RepairReport {
        guard let files = store.files else { return RepairReport() }
        var report = RepairReport()
        // A damaged database is reported and nothing else is done: rows read from it cannot be
        // trusted, and a repair built on them could delete what it should keep.
        let databaseProblems: [String]
        do {
            databaseProblems = try store.integrityProblems()
        } catch {
            databaseProblems = [CraveyError(database: error)?.message ?? "\(error)"]
        }
        for problem in databaseProblems { report.add(.init(.damagedDatabase, problem: problem)) }
        guard databaseProblems.isEmpty else { return report }
        let (rows, impossible, entries) = try store.readSettled { db in
            let repository = RecordingRepository(db)
            for id in try repository.unreadableRows() { report.add(.init(.unreadableRow, problem: id)) }
            return (try repository.recordings(), try repository.rowsWithImpossibleNumbers(),
                    [StoredFile.Folder.recordings, .thumbnails].flatMap { folder in files.entries(in: folder).map { (folder, $0) } })
        }
        // Each file as the settled look saw it: a clip trimmed or deleted while earlier clips are
        // decoded is not taken for a size that disagrees with its row, or for a missing file.
        var settled: [StoredFile: FileStorageManager.Status] = [:]
        for (folder, entry) in entries { if let file = entry.file(in: folder) { settled[file] = entry.status } }
        func status(_ file: StoredFile) -> FileStorageManager.Status { settled[file] ?? .missing }
        var referenced: Set<StoredFile> = []
        for row in rows {
            let clip = ClipFiles(row)
            func found(_ kind: RepairReport.Finding.Kind, path: String? = row.filePath, problem: String? = nil) {
                report.add(.init(kind, id: row.id, title: row.title, path: path, problem: problem))
            }
            // Paths are the unsafe paths' and thumbnails' to report; the rest are values.
            var problems = row.problems().filter { !$0.hasPrefix("filePath:") && !$0.hasPrefix("thumbnailPath:") }
            if impossible.contains(row.id.description) {
                problems.append("numbers: a length, a play count (not the number of its plays) or a loudness no clip has (a length read as 0, a negative count as 0, a loudness as not measured)")
            }
            if !problems.isEmpty { found(.badValues, problem: problems.joined(separator: "; ")) }
            // Every part of the clip is its row's, but its thumbnail (the row names it, or not)
            // and a transient part (a crash's leftover, sorted out below).
            referenced.formUnion(ClipFiles.Part.all.filter { $0 != .thumbnail && $0.origin != .transient }.compactMap(clip.file))
            if let thumbnail = row.thumbnailPath {
                // Its own thumbnail, or a path that is not (a row edited by hand), or a link there.
                if let own = clip.file(.thumbnail), thumbnail == own.path, status(own).size != nil || status(own) == .missing {
                    referenced.insert(own)
                } else {
                    found(.unsafeThumbnail, path: thumbnail)
                }
            }
            guard row.filePath == clip.media().path else {
                found(.unsafePath)
                continue
            }
            let media = status(clip.media())
            switch media {
            case .missing:
                found(.missingFile)
                continue
            case .other:
                found(.unsafePath)
                continue
            case .regular(let size, _):
                if size != row.fileSize {
                    found(.sizeMismatch, problem: "is \(size) bytes, the entry says \(row.fileSize)")
                }
            }
            // Read to its end: media damaged after its first seconds still opens, decodes a
            // first frame and says its whole length.
            // Read while another process may change it: damage in a file trimmed or deleted
            // meanwhile is not this file's.
            if let damage = try MediaProbe.damage(of: store.media(clip.media())), store.status(of: clip.media()) == media {
                found(.damagedMedia, problem: damage)
            }
            if status(clip.file(.copy)!) == .missing { found(.missingCopy) }
            let missingWaveform = !store.holdsWaveform(of: clip)
            // A video without sound has nothing to measure; looking costs one open of its file.
            guard row.loudness == nil || missingWaveform,
                  row.type == .audio || (try? MediaProbe.info(of: store.media(clip.media())).audioStream) != nil else { continue }
            if row.loudness == nil { found(.missingLoudness) }
            if missingWaveform { found(.missingWaveform) }
        }
        try classify(entries, referenced: referenced, rows: Set(rows.map(\.id)), into: &report)
        let words = store.searchedWords(of: rows)
        // Words read as none (a file too large, a value no transcript has), or not the clip's (a
        // word starting past its end: ``Transcript/restored(for:)``).
        for row in rows {
            guard let file = ClipFiles(row).file(.transcript), status(file).size != nil,
                  words[row.id]?.restored(for: row.duration) == nil else { continue }
            report.add(.init(.untrustedTranscript, id: row.id, title: row.title, path: file.path))
        }
        // An index that cannot even be read is out of step too: a repair makes it again.
        if !((try? store.read { db in try ClipSearch(db).isInStep(words: words) }) ?? false) { report.add(.init(.searchIndexOutOfStep)) }
        if repair {
            try repairFiles(&report, deleteUnplayable: deleteUnplayable)
            try finishReplacements(&report)
            try repairValues(&report)
            measure(&report)
            register(&report)
            try remakeSearchIndex(&report)
        }
        return report
    }

    /// Makes the word index again when it is missing or out of step, from the rows and
    /// transcripts as they are now (under the writers' lock, in one transaction).
    private func remakeSearchIndex(_ report: inout RepairReport) throws {
        // The other repairs keep it in step as every change does: only one found out of step is
        // made again (so a library that cannot be written is not written for nothing).
        guard let index = report.indices(.searchIndexOutOfStep).first else { return }
        let remade = try store.write { tx in
            let words = store.searchedWords(of: try tx.repository.recordings())
            guard try !ClipSearch(tx.db).isInStep(words: words) else { return false }
            try ClipSearch(tx.db).remake(words: words)
            return true
        }
        if remade { report.repaired(index, "Made the search index again from the clips' titles, notes and words.") }
    }

    /// Sorts the files no row names into what they are: a person's files, crashes' leftovers,
    /// orphans. Orphan media are probed (without the lock): playable, or not.
    private func classify(_ entries: [(StoredFile.Folder, FileStorageManager.Entry)], referenced: Set<StoredFile>,
                          rows: Set<RecordingID>, into report: inout RepairReport) throws {
        let named = entries.compactMap { folder, entry in entry.status.size == nil ? nil : entry.file(in: folder) }
        let writing = store.clipsBeingWritten(named, rows: rows)
        // The clips whose media is here, under any name but an interrupted import's (which goes):
        // their other parts (copies, waveforms) go with them.
        let withMedia = Set(named.compactMap(StoredName.init).filter { $0.part == .media && $0.marker == nil && $0.state != .importing }.map(\.clip))
        for (folder, entry) in entries {
            // A link, a folder, a pipe or a device is never cravey's, whatever its name: said, not
            // looked into. A name that is not UTF-8 cravey never gives.
            if case .other(let kind) = entry.status {
                if folder == .recordings, entry.name == Array("Thumbnails".utf8) { continue }
                report.add(.init(.foreignFile, path: folder.path + "/" + StoredFile.visible(entry.name), problem: kind))
                continue
            }
            guard entry.status.size != nil else { continue }
            guard let file = entry.file(in: folder) else {
                report.add(.init(.foreignFile, path: folder.path + "/" + StoredFile.visible(entry.name)))
                continue
            }
            guard !referenced.contains(file) else { continue }
            // What cravey did not name is not cravey's: reported, never deleted or registered.
            guard let name = StoredName(file) else {
                report.add(.init(.foreignFile, path: file.path))
                continue
            }
            if writing.contains(name.clip) { continue }  // another process is making it
            switch (name.marker, name.part) {
            case (.deleting?, _): report.add(.init(.interruptedDeletion, path: file.path))
            case (.temporary?, _): report.add(.init(.interruptedWrite, path: file.path))
            case (nil, .thumbnail): report.add(.init(.orphanThumbnail, path: file.path))  // whose row does not name it
            case (nil, .journal): report.add(.init(.interruptedReplacement, path: file.path))
            // The words an editor had when a kill or a power cut ended `transcript --edit`: its
            // process held it, and the clip's words, locked while the editor had it.
            case (nil, .correction) where [file, name.clip.file(.transcript)!].contains { store.files?.isLocked($0) == true }: continue
            case (nil, .correction): report.add(.init(.interruptedWrite, path: file.path))
            case (nil, .media) where name.finishing: continue  // a rewrite a crash cut off; its original is kept
            case (nil, .media) where name.state == .importing: report.add(.init(.interruptedImport, path: file.path))
            case (nil, .media):
                let media = store.media(file)
                // Only the file's faults make it unplayable; anything else (running out of memory)
                // says nothing about the file, and is thrown.
                let duration: Double?
                do { duration = try MediaProbe.playableDuration(of: media) } catch is CraveyError { duration = nil }
                if duration != nil, !holds(name.clip.type, media) {
                    report.add(.init(.foreignFile, path: file.path))  // its bytes are not what its name says
                } else {
                    let size = ByteCount.text(entry.status.size ?? 0)
                    report.add(.init(duration == nil ? .unplayableFile : .orphanFile, path: file.path,
                                     problem: duration.map { "\(size), playable, \(RecordingMetadata.displayDuration($0))" } ?? "\(size), cannot be played"))
                }
            case (nil, _) where withMedia.contains(name.clip): continue  // an orphan's own, used when it is registered
            // A copy or a waveform in the kind each has always had, any other part as a part.
            case (nil, .copy): report.add(.init(.orphanCopy, path: file.path))
            case (nil, .waveform): report.add(.init(.orphanWaveform, path: file.path))
            case (nil, _): report.add(.init(.orphanPart, path: file.path))
            }
        }
    }

    /// Whether `media` holds what a file of `type` is named for: an MP4 with sound and no
    /// picture (`.m4a`), or one with a picture (`.mp4`).
    private func holds(_ type: RecordingType, _ media: MediaLocation) -> Bool {
        guard let info = try? MediaProbe.info(of: media), info.formatName.contains("mp4") else { return false }
        return type == .video ? info.videoStream != nil : info.videoStream == nil && info.audioStream != nil
    }

    /// The repairs that only rename, remove and change rows: one transaction, each checked again
    /// against the library as it is now.
    private func repairFiles(_ report: inout RepairReport, deleteUnplayable: Bool) throws {
        try store.write { tx in
            let repository = tx.repository
            func hasRow(_ id: RecordingID) throws -> Bool { try repository.recording(id) != nil }
            // Whether none of `clip`'s media is there, in place or being written.
            func mediaGone(_ clip: ClipFiles) -> Bool {
                ([clip.media()] + clip.writing).allSatisfy { store.status(of: $0) == .missing }
            }
            for index in report.indices(.interruptedDeletion) {
                guard let aside = report.findings[index].path.flatMap(StoredFile.init(path:)), let name = StoredName(aside),
                      case .deleting(let original)? = name.marker else { continue }
                if try hasRow(name.clip.id), store.status(of: original) == .missing {
                    try tx.unmark(aside, as: original)
                    report.repaired(index, "Restored \(original.path): its deletion was interrupted before the row was removed.")
                } else {
                    try tx.remove(aside)
                    report.repaired(index, "Finished deleting \(original.path).")
                }
            }
            for index in report.indices(.interruptedImport) { try removeLeftover(index, "an import that was cut off", tx, into: &report) }
            for index in report.indices(.interruptedWrite) { try removeLeftover(index, "a write that was cut off", tx, into: &report) }
            for index in report.indices(.missingFile, .unsafePath) {
                let row = report.findings[index]
                guard let id = row.id, let current = try repository.recording(id) else { continue }
                let (title, filePath) = (row.title ?? "", row.path ?? "")
                let media = ClipFiles(current).media()
                if store.status(of: media).size != nil {
                    guard current.filePath != media.path else { continue }
                    // A path that is not its own (a row edited by hand), while its own file is there.
                    try repository.updateFilePath(of: id, to: media.path)
                    report.repaired(index, "Pointed the entry \"\(title)\" (\(id.description)) at its own file \(media.path) instead of \(filePath).")
                    continue
                }
                // Its other files go with it (never a file under another name, nor a link).
                _ = try tx.delete(id)
                report.repaired(index, "Removed the entry \"\(title)\" (\(id.description)): its media \(filePath) is gone.")
            }
            for index in report.indices(.unsafeThumbnail) {
                let thumbnail = report.findings[index]
                guard let id = thumbnail.id, try hasRow(id) else { continue }
                try repository.updateThumbnail(of: id, to: nil)
                report.repaired(index, "Removed the thumbnail path \(thumbnail.path ?? "") of \"\(thumbnail.title ?? "")\" (\(id.description)): it pointed outside the library.")
            }
            for index in report.indices(.sizeMismatch) {
                guard let id = report.findings[index].id, let recording = try repository.recording(id),
                      let size = store.status(of: ClipFiles(recording).media()).size else { continue }
                try repository.updateFileSize(of: id, to: size)
                report.repaired(index, "Updated the size of \(report.findings[index].path ?? "") to \(size) bytes.")
            }
            for index in report.indices(.missingCopy) {
                guard let id = report.findings[index].id, try hasRow(id) else { continue }
                tx.keepCopy(of: id)
                report.repaired(index, "Kept a copy of the words of \"\(report.findings[index].title ?? "")\" beside its media.")
            }
            for index in report.indices(.untrustedTranscript) {
                let row = report.findings[index]
                guard let id = row.id, let current = try repository.recording(id), let path = row.path, let file = StoredFile(path: path),
                      store.status(of: file).size != nil else { continue }
                let title = row.title ?? ""
                if let held = store.contents(of: file, atMost: Transcript.largestFile).flatMap(Transcript.init(data:)) {
                    guard held.restored(for: current.duration) == nil else { continue }
                    try tx.store(held.within(current.duration).data, as: .transcript, of: ClipFiles(current))
                    report.repaired(index, "Cut the words of \"\(title)\" to its length: some were said past its end.")
                } else {
                    try tx.remove(file)
                    report.repaired(index, "Deleted \(path), words of \"\(title)\" cravey cannot read (`cravey transcribe \(id.description.prefix(8))` hears them again).")
                }
            }
            for index in report.indices(.orphanThumbnail) {
                guard let path = report.findings[index].path, let file = StoredFile(path: path), let name = StoredName(file),
                      try !hasRow(name.clip.id) else { continue }
                try tx.remove(file)
                report.repaired(index, "Deleted the thumbnail \(path), which no recording uses.")
            }
            for (kind, why) in [(RepairReport.Finding.Kind.orphanCopy, "the copy of a clip that is gone"),
                                (.orphanWaveform, "the waveform of a clip that is gone"), (.orphanPart, "a file of a clip that is gone")] {
                for index in report.indices(kind) {
                    guard let name = report.findings[index].path.flatMap(StoredFile.init(path:)).flatMap(StoredName.init),
                          try !hasRow(name.clip.id), mediaGone(name.clip) else { continue }
                    try removeLeftover(index, why, tx, into: &report)
                }
            }
            for index in report.indices(.unplayableFile) {
                guard let path = report.findings[index].path, let file = StoredFile(path: path), let name = StoredName(file),
                      try !hasRow(name.clip.id) else { continue }
                if deleteUnplayable {
                    try tx.remove(file)
                    report.repaired(index, "Deleted \(path), which cannot be played.")
                } else if name.state == .recording, store.status(of: file).size == 0 || MediaProbe.holdsNoPacket(store.media(file)) {
                    try tx.remove(file)
                    report.repaired(index, "Deleted \(path), a recording cut off before its first sound: it held nothing.")
                } else {
                    continue
                }
                // Its clip's other files (a waveform the meter kept) went unseen while it was there.
                if mediaGone(name.clip) {
                    for left in name.clip.finished where store.status(of: left) != .missing {
                        try tx.remove(left)
                        report.repaired(nil, "Deleted \(left.path), a file of the media deleted.")
                    }
                }
            }
        }
    }

    /// Finishes the replacements of clips' media a crash cut off (a trim, a clean-up): whichever
    /// media is in place, the old or the new, the clip's length, size, loudness, waveform,
    /// thumbnail and copy are made again from it, so the clip is whole; its markers are those of
    /// the media in place (the journal's when it is the new media, by its inode: a trim's moved
    /// markers; the row's when it is the old), and its transcript goes; then its journal goes.
    private func finishReplacements(_ report: inout RepairReport) throws {
        for index in report.indices(.interruptedReplacement) {
            guard let journal = report.findings[index].path.flatMap(StoredFile.init(path:)), let clip = StoredName(journal)?.clip else { continue }
            let media = clip.media()
            let finisher = ClipFinisher(store: store)
            let measured = try? finisher.measure(media, type: clip.type)  // media that no longer reads keeps its row's facts
            let size = store.status(of: media).size
            let written = store.contents(of: journal, atMost: 1 << 20).flatMap(ReplacementJournal.init)
            let inPlace = store.files?.information(about: media).map { UInt64($0.st_ino) }
            let newMarkers = written?.inode != nil && written?.inode == inPlace ? written?.markers : nil
            try store.write { tx in
                if let current = try tx.repository.recording(clip.id), let measured, let size {
                    // Which media its parts were made from is not known: those made from the
                    // media are made again, the others (a transcript, whose words' times may be
                    // the old media's or the new's) go, never stale (`cravey transcribe`).
                    let thumbnail = try finisher.writeParts(measured.parts, of: clip, after: .replaced, in: tx)
                    try tx.repository.updateMedia(of: clip.id, duration: measured.duration, fileSize: size,
                                                  loudness: measured.loudness, thumbnailPath: thumbnail,
                                                  markers: newMarkers ?? current.markers)
                } else {
                    // Media that no longer reads keeps its facts; what is not made from the
                    // media goes all the same.
                    for part in ClipFiles.Part.all where part.origin == .derived && ![.fromMedia, .fromRow].contains(part.remaking) {
                        if let file = clip.file(part) { try tx.remove(file) }
                    }
                }
                try tx.remove(journal)
            }
            report.repaired(index, "Finished the change of \(media.path) a crash cut off: what the clip owns was made again from its media.")
        }
    }

    /// Sets the values of rows no clip has to what the clip's file and plays tell: the length
    /// its media has, a creation date from the file (or now), the last play its plays say, a play
    /// count of the number of its plays, a loudness not measured (measured next). Words a person
    /// gave are left to them (`edit`), and said so.
    private func repairValues(_ report: inout RepairReport) throws {
        for index in report.indices(.badValues) {
            let bad = report.findings[index]
            guard let id = bad.id, let recording = try library.recording(id) else { continue }
            let media = ClipFiles(recording).media()
            let probed = try? MediaProbe.duration(of: store.media(media))  // a file that does not probe keeps 0
            let modified = if case .regular(_, let date) = store.status(of: media), Recording.Bounds.dates.contains(date) { date } else { Date() }
            try store.write { tx in
                guard let current = try tx.repository.recording(id) else { return }
                let allPlays = try tx.repository.plays(of: id)
                let plays = allPlays.filter { Recording.Bounds.dates.contains($0.playedAt) }
                try tx.db.execute(sql: """
                    UPDATE recording SET duration = ?, createdAt = ?, playCount = ?, lastPlayedAt = ?,
                        loudnessIntegrated = ?, loudnessTruePeak = ? WHERE id = ?
                    """, arguments: [
                        probed ?? current.duration,
                        Recording.storedText(Recording.Bounds.dates.contains(current.createdAt) ? current.createdAt : modified),
                        allPlays.count, plays.map(\.playedAt).max().map(Recording.storedText),
                        current.loudness?.integrated, current.loudness?.truePeak, id.description,
                    ])
            }
            let words = recording.problems().filter { $0.hasPrefix("title:") || $0.hasPrefix("notes:") }
            report.repaired(index, "Set the values of \"\(bad.title ?? "")\" (\(id.description)) its file and plays tell."
                                  + (words.isEmpty ? "" : " Its words are yours to change: `cravey edit` (\(words.joined(separator: "; ")))."))
        }
    }

    /// Deletes the leftover the examination found at `index` (one already gone is no error) and says why.
    private func removeLeftover(_ index: Int, _ why: String, _ tx: StoreTransaction, into report: inout RepairReport) throws {
        guard let path = report.findings[index].path, let file = StoredFile(path: path) else { return }
        try tx.remove(file)
        report.repaired(index, "Deleted \(path), \(why).")
    }

    /// Measures the loudness and the waveform of the clips that lack either, in one decoding
    /// each, without the lock; each result is stored in a transaction of its own while the clip
    /// is there.
    private func measure(_ report: inout RepairReport) {
        let missingLoudness = report.findings(.missingLoudness), missingWaveforms = report.findings(.missingWaveform)
        let unmeasured = Set(missingLoudness.compactMap(\.id)), unpictured = Set(missingWaveforms.compactMap(\.id))
        for row in missingLoudness + missingWaveforms.filter({ $0.id.map { !unmeasured.contains($0) } ?? false }) {
            guard let id = row.id else { continue }
            let (loudness, waveform, title) = (unmeasured.contains(id), unpictured.contains(id), row.title ?? "")
            do {
                guard let recording = try library.recording(id) else { continue }
                let measured = try library.analysis.measureSound(of: recording, loudness: loudness, waveform: waveform)
                if let measurement = measured.loudness {
                    try store.write { tx in try tx.repository.updateLoudness(of: id, to: measurement) }
                    report.measuredLoudness += 1
                }
                if let picture = measured.waveform {
                    do {
                        try library.analysis.keep(picture, of: recording)
                        report.measuredWaveforms += 1
                    } catch let error as CraveyError {
                        report.loudnessFailures.append("Could not keep the waveform of \"\(title)\" (\(id.description)): \(error.message)")
                    }
                }
            } catch {
                let what = loudness && waveform ? "the loudness and waveform" : loudness ? "the loudness" : "the waveform"
                let reason = (error as? CraveyError)?.message ?? "\(error)"
                report.loudnessFailures.append("Could not measure \(what) of \"\(title)\" (\(id.description)): \(reason)")
            }
        }
    }

    /// Registers the playable orphans, each finished as a recording is (``ClipFinisher``) after
    /// this process has taken it (``LibraryStore/claim(_:)``), so that no other repair registers
    /// it too. One that cannot be registered (its copy is not its record, or the save fails) is
    /// left where it is, and said so; the others are registered all the same.
    private func register(_ report: inout RepairReport) {
        for index in report.indices(.orphanFile) {
            guard let path = report.findings[index].path, let file = StoredFile(path: path), let name = StoredName(file), store.claim(file) else { continue }
            do {
                let (recording, restored) = try recover(file, name)
                report.repaired(index, "Registered \(path) as \"\(recording.title)\" (\(recording.id.description))"
                                      + (restored ? ", with its words and plays from its own copy." : "."))
            } catch {
                store.release(file)
                report.add(.init(.notRepaired, path: path, problem: "Left \(path) unregistered: \((error as? CraveyError)?.message ?? "\(error)")"))
            }
        }
    }

    /// Registers a playable orphan, named by cravey's scheme, of the type and (unless a row has
    /// it) the id its name says: as its own copy says it was (its words, date, plays, loudness),
    /// or, without one, titled "Recovered <date>". Returns the row and whether it was restored.
    private func recover(_ file: StoredFile, _ name: StoredName) throws -> (Recording, Bool) {
        let (type, named) = (name.clip.type, name.clip.id)
        let id = try library.recording(named) == nil ? named : RecordingID()
        let modified = if case .regular(_, let modified) = store.status(of: file) { modified } else { Date() }
        let title = "Recovered " + String(RecordingMetadata.automaticTitle(for: modified).dropFirst("Recording ".count))
        // A file a crash cut off is still fragmented: the finisher rewrites it when it can.
        let clip = ClipFinisher.Clip(file: file, id: id, type: type, fragmented: name.state == .recording)
        let finisher = ClipFinisher(store: store)
        if id == named, let copy = name.clip.file(.copy), store.status(of: copy) != .missing {
            // Its own copy is there: the clip is registered as it says, or not at all (a copy that
            // is no record of it, or holds values no clip has, is a person's to look at).
            guard let record = store.record(of: name.clip) else {
                throw CraveyError(.invalidInput, "its copy \(copy.path) is not a record of it (not a regular file, not a clip's JSON, or its plays name another clip); move the copy aside to register the clip as \"Recovered\"")
            }
            let problems = record.recording.problems(plays: record.plays).filter { !$0.hasPrefix("filePath:") && !$0.hasPrefix("thumbnailPath:") }
            guard problems.isEmpty else {
                throw CraveyError(.invalidInput, "its copy \(copy.path) holds values no clip has (\(problems.joined(separator: "; "))); move the copy aside to register the clip as \"Recovered\"")
            }
            return (try finisher.finish(clip, restoring: record), true)
        }
        return (try finisher.finish(clip, metadata: try RecordingMetadata(title: title), createdAt: modified), false)
    }
}
