import Foundation
import SystemPackage

/// A whole library in one file, and back: a tar archive (``Tar``) that any archive tool opens.
///
/// Inside `cravey-backup/` it holds the library's own layout: each clip's media
/// (`Recordings/audio_<uuid>.m4a`), the other parts a backup carries (``ClipFiles/Part/isBackedUp``)
/// under their own names: a video's thumbnail (`Recordings/Thumbnails/video_<uuid>.jpg`), its
/// waveform (`Recordings/audio_<uuid>.peaks.dat`, from version 2 of the format; a clip without
/// one has none), and the clip's record (`Recordings/audio_<uuid>.json`: its row, loudness and
/// plays, the same copy a clip keeps beside its media), the library's reminders when it has any
/// (`reminders.json`, as `cravey remind --json` prints them) and the person's own words when
/// there are any (`words.json`, ``LibraryVocabulary``), each from version 3, then `manifest.json` last:
/// the format, who wrote it and the size and SHA-256 of every file, which `sha256sum` checks the
/// same way.
///
/// A restore reads the archive twice: once to check every byte against the manifest, changing
/// nothing; then to add, one clip at a time (each saved as an import is), the clips the library
/// does not have. A damaged, cut-short or altered archive restores nothing.
/// Checks a clip's media once a restore has written it, before anything is saved: CraveyKit's
/// restore decodes it and compares its length with the record's.
package typealias RestoredMediaCheck = (StoredFile, Recording) throws -> Void

enum Backup {
    /// The folder every entry is in.
    static let folder = "cravey-backup"
    static let manifestName = "manifest.json"
    /// The library's reminders (``Reminder``), when it has any.
    static let remindersName = "reminders.json"
    /// The person's own words (``VocabularyWord``s as JSON), when the library keeps any.
    static let wordsName = "words.json"
    /// The folders of an archive, as tar names them.
    static let folders = [folder + "/", folder + "/Recordings/", folder + "/Recordings/Thumbnails/"]
    /// The largest record or manifest read into memory.
    static let largestRecord: Int64 = 16 << 20

    /// What `manifest.json` says.
    struct Manifest: Codable {
        static let format = "cravey-backup"
        /// 2: clips' waveforms are in it (version 1 had none, and restores as it is). 3: the
        /// library's reminders (`reminders.json`) and the person's own words (`words.json`) may be;
        /// a backup with neither is written as version 2, which an older cravey restores.
        static let version = 3
        /// The version of a backup with neither reminders nor words.
        static let withoutLibraryFiles = 2

        var format = Self.format
        var version = Self.version
        var createdAt: Date
        var writtenBy: String
        /// The identity of the library it was made of (its `libraryInfo`).
        var libraryID: String?
        var files: [File]

        struct File: Codable, Equatable {
            /// Relative to `cravey-backup/`.
            var path: String
            var size: Int64
            var sha256: String
        }

        static let encoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            return encoder
        }()

        static let decoder: JSONDecoder = {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return decoder
        }()
    }

    /// The clip's file an entry of the archive is, by its path under `cravey-backup/`: a part
    /// a backup carries, under its finished name; nil for any other path (the manifest's too).
    static func part(_ path: String) -> StoredName? {
        guard let name = StoredFile(path: path).flatMap(StoredName.init), name.marker == nil, !name.isWriting,
              name.part.isBackedUp else { return nil }
        return name
    }

    /// The parts a backup carries as their files' bytes, in the list's order: all it carries
    /// but the media (the clip itself, first) and the copy (the clip's record, written from its
    /// row, last).
    static var carried: [ClipFiles.Part] { ClipFiles.Part.all.filter { $0.isBackedUp && $0 != .media && $0 != .copy } }

    // MARK: - Writing

    /// Writes every clip of `library` to a new archive at `url` (mode 0600, in one step: a
    /// failure leaves nothing there), encrypted for `passphrase` when one is given
    /// (``ArchiveOutput``). Reads one snapshot of the rows and takes no lock: recording, playing
    /// and deleting go on meanwhile. A clip whose media cannot be opened (deleted since the
    /// snapshot, or missing) is left out and returned. Each clip's files are read under its own
    /// names (``ClipFiles``), never where its row's paths say.
    static func write(_ library: RecordingLibrary, to url: URL, replacing: Bool, encryptingWith passphrase: [UInt8]?, now: Date,
                      progress: ((Double) -> Void)?) throws -> (clips: Int, bytes: Int64, leftOut: [Recording]) {
        let store = library.store
        let (libraryID, clips, reminders, words) = try store.read { db in
            let repository = RecordingRepository(db)
            return (try repository.libraryID(), try repository.everything(), try Reminder.all(db), try LibraryVocabulary.words(db))
        }
        let total = max(clips.reduce(0) { $0 + $1.0.fileSize }, 1)
        var done: Int64 = 0
        var files: [Manifest.File] = []
        var leftOut: [Recording] = []
        var written: Int64 = 0
        try library.archive.writeOutside(to: url, doing: "write the backup to", replacing: replacing) { file in
            let archive = try ArchiveOutput(file, encryptingWith: passphrase)
            for name in folders {
                try write(Tar.header(Tar.Entry(name: name, size: 0, isFolder: true), modified: now), to: archive)
            }
            func add(_ path: String, size: Int64, modified: Date, _ fill: ((ArraySlice<UInt8>) throws -> Void) throws -> Void) throws {
                try write(Tar.header(Tar.Entry(name: "\(folder)/\(path)", size: size), modified: modified), to: archive)
                let hash = SHA256()
                var count: Int64 = 0
                try fill { bytes in
                    hash.update(bytes)
                    count += Int64(bytes.count)
                    try write(bytes, to: archive)
                }
                guard count == size else {
                    throw CraveyError(.other, "\(path) changed size while it was backed up. Back up again.")
                }
                try write([UInt8](repeating: 0, count: Tar.padding(after: size))[...], to: archive)
                files.append(Manifest.File(path: path, size: size, sha256: hash.hexDigest()))
            }
            func add(_ path: String, _ data: Data, modified: Date) throws {
                try add(path, size: Int64(data.count), modified: modified) { body in try body(ArraySlice(data)) }
            }
            func add(_ path: String, from descriptor: FileDescriptor, size: Int64, modified: Date) throws {
                try add(path, size: size, modified: modified) { body in
                    var buffer = [UInt8](repeating: 0, count: 1 << 16)
                    var left = size
                    while left > 0 {
                        let count = try buffer.withUnsafeMutableBytes { try descriptor.read(into: $0) }
                        guard count > 0 else { break }
                        let used = Int(min(Int64(count), left))
                        try body(buffer[..<used])
                        left -= Int64(used)
                        done += Int64(used)
                        progress?(min(Double(done) / Double(total), 1))
                    }
                }
            }

            for (recording, plays) in clips {
                let clip = ClipFiles(recording)
                // Opened first: a clip deleted from here on is read whole from its descriptor.
                guard let media = try? store.open(clip.media()) else {
                    leftOut.append(recording)
                    continue
                }
                defer { try? media.close() }
                // Its other parts with it. One that is missing, or not a regular file, is not the
                // clip's (``LibraryStore/open(_:)`` says which): the backup goes without it. A
                // thumbnail goes only with a row that names one, and the record names it.
                let parts = carried.compactMap { part -> (file: StoredFile, descriptor: FileDescriptor)? in
                    guard part != .thumbnail || recording.thumbnailPath != nil, let file = clip.file(part),
                          let descriptor = try? store.open(file) else { return nil }
                    return (file, descriptor)
                }
                defer { for part in parts { try? part.descriptor.close() } }
                var row = recording
                row.filePath = clip.media().path
                row.thumbnailPath = nil
                row.fileSize = try size(of: media)
                try add(row.filePath, from: media, size: row.fileSize, modified: recording.createdAt)
                for (file, descriptor) in parts {
                    try add(file.path, from: descriptor, size: try size(of: descriptor), modified: recording.createdAt)
                    if file == clip.file(.thumbnail) { row.thumbnailPath = file.path }
                }
                try add(clip.file(.copy)!.path, ClipRecord(recording: row, plays: plays).encoded(), modified: now)
            }
            if !reminders.isEmpty {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
                try add(remindersName, try encoder.encode(reminders.map { reminder in
                    var kept = reminder
                    kept.number = nil  // the library's own: a restore gives new ones
                    return kept
                }), modified: now)
            }
            if !words.isEmpty { try add(wordsName, try Manifest.encoder.encode(words), modified: now) }
            let manifest = Manifest(version: reminders.isEmpty && words.isEmpty ? Manifest.withoutLibraryFiles : Manifest.version,
                                    createdAt: now, writtenBy: RecordingLibrary.programVersion, libraryID: libraryID, files: files)
            try add(manifestName, try Manifest.encoder.encode(manifest), modified: now)
            try write([UInt8](repeating: 0, count: 2 * Tar.blockSize)[...], to: archive)
            written = try archive.finish()
        }
        return (clips.count - leftOut.count, written, leftOut)
    }

    private static func write(_ bytes: ArraySlice<UInt8>, to archive: ArchiveOutput) throws {
        try archive.write(bytes)
    }

    private static func write(_ bytes: [UInt8], to archive: ArchiveOutput) throws {
        try archive.write(bytes[...])
    }

    private static func size(of descriptor: FileDescriptor) throws -> Int64 {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else { throw Errno(rawValue: errno) }
        return Int64(info.st_size)
    }

    // MARK: - Restoring

    /// A clip of a checked archive: its record, its media and the other parts that come with
    /// it (a thumbnail, a waveform; ``carried``).
    struct Clip {
        var record: ClipRecord
        var media: Manifest.File
        var parts: [ClipFiles.Part: Manifest.File] = [:]

        /// The manifest's line for the clip's `part`, if it came with the clip.
        func file(_ part: ClipFiles.Part) -> Manifest.File? { part == .media ? media : parts[part] }

        /// The bytes of its files.
        var size: Int64 { parts.values.reduce(media.size) { $0 + $1.size } }
    }

    /// Opens the archive at `url` (a regular file outside `library`) and checks all of it,
    /// changing nothing anywhere: every entry is a file of a backup, once, and every byte is what
    /// the manifest says (the first half of `progress`). An encrypted archive asks `passphrase`
    /// for its passphrase (once; never for a plain one), and every chunk is verified as it is read.
    static func check(_ url: URL, outside library: URL, passphrase: (() throws -> [UInt8])?,
                      progress: ((Double) -> Void)?) throws -> CheckedBackup {
        let archive = try open(url, outside: library)
        do {
            let before = try Stamp(archive)
            let total = Double(max(before.size, 1)) * 2
            var done: Int64 = 0
            let (contents, fileKey) = try damage(url, "Nothing was restored.") {
                let input = try ArchiveInput(archive, passphrase: passphrase)
                let checked = try check(Tar.Reader(input)) { count in
                    done += Int64(count)
                    progress?(min(Double(done) / total, 1))
                }
                return (checked, input.fileKey)
            }
            return CheckedBackup(url: url, archive: archive, stamp: before, clips: contents.clips, reminders: contents.reminders,
                                 words: contents.words, fileKey: fileKey)
        } catch {
            try? archive.close()
            throw error
        }
    }

    /// Adds to `store`'s library every clip of the checked archive it does not have, reading it
    /// a second time (the second half of `progress`), and every reminder it does not have (the
    /// same time, days and clip) in the same transaction. Returns the clips restored, those already
    /// there, those whose place a file without a row holds (a repair registers that file
    /// first), and how many reminders it added. The archive's bytes are not hashed again: an encrypted one's chunks are verified
    /// again as they are read, and a plain one must not have changed since it was checked.
    ///
    /// All or nothing: every clip to add is written first (its media under its `.importing`
    /// name, its thumbnail and waveform), and `checking` looks at each; one refused, or anything
    /// failing, removes all of them and changes nothing. Then the clips are saved in one
    /// transaction, with the backup's own words the library does not keep
    /// (``LibraryVocabulary/merge(_:into:)``). A clip another restore is writing at the same time is left to it.
    static func restore(_ checked: CheckedBackup, into store: LibraryStore, checking: RestoredMediaCheck?,
                        progress: ((Double) -> Void)?) throws -> (restored: [Recording], alreadyThere: Int, blocked: [Recording], reminders: Int) {
        let (url, archive, clips) = (checked.url, checked.archive, checked.clips)
        let total = Double(max(checked.stamp.size, 1)) * 2
        var done = checked.stamp.size
        let report: (Int) -> Void = { count in
            done += Int64(count)
            progress?(min(Double(done) / total, 1))
        }

        // Nothing changes unless there is room for every clip to add.
        let have = Set(try store.read { db in try RecordingRepository(db).recordings() }.map(\.id))
        let needed = clips.values.filter { !have.contains($0.record.recording.id) }
            .reduce(Int64(0)) { $0 + $1.size }
        if let free = store.files?.freeBytes(), free < needed + (16 << 20) {
            throw CraveyError(.cannotWrite, "The backup's clips need \(needed) bytes in \(store.libraryURL.path), and only \(free) are free. Nothing was restored.",
                              advice: .freeSpace)
        }

        let input = try damage(url, "Nothing was restored.") { try ArchiveInput(archive, passphrase: nil, fileKey: checked.fileKey) }
        let reader = Tar.Reader(input)
        var alreadyThere = 0
        var blocked: [Recording] = []
        var extracted: [RecordingID: (media: StoredFile, artefacts: [StoredFile])] = [:]
        var made: [StoredFile] = []  // everything written here, removed unless saved
        defer { made.forEach(store.remove) }
        try damage(url, "Nothing was restored.") {
            while let entry = try reader.next() {
                if entry.isFolder { continue }
                let path = String(entry.name.dropFirst(folder.count + 1))
                let file = try expected(path, of: clips)
                let name = part(path)
                switch (name?.part, name?.clip) {
                case (let part?, let clip?) where part == .media && !have.contains(clip.id):
                    let id = clip.id
                    guard store.status(of: clip.media()) == .missing else {
                        blocked.append(clips[id]!.record.recording)
                        try reader.read(entry) { report($0.count) }
                        continue
                    }
                    let place = clip.media(.importing)
                    guard let media = try claim(place, in: store) else {
                        alreadyThere += 1  // another restore is adding it
                        try reader.read(entry) { report($0.count) }
                        continue
                    }
                    made.append(place)
                    extracted[id] = (place, [])
                    try reader.read(entry) { bytes in
                        try written(place, in: store) { try bytes.withUnsafeBytes { try media.writeAll($0) } }
                        report(bytes.count)
                    }
                    // On its way to the disk while the next clip is read: its save waits less.
                    media.startSyncing()
                    try written(place, in: store) { try media.close() }
                case (let part?, let clip?) where part != .media && part != .copy && extracted[clip.id] != nil:
                    var data = Data()
                    try reader.read(entry) { bytes in
                        data.append(contentsOf: bytes)
                        report(bytes.count)
                    }
                    guard SHA256.of(data) == file.sha256 else { throw Tar.Damage("\(path) changed while it was restored") }
                    guard let target = clip.file(part) else { continue }
                    guard let restored = part.restored(data, clips[clip.id]!.record.recording) else {
                        // A part whose bytes are not one (a waveform that is not) is left out
                        // when the clip's first use makes it again; any other refuses the backup.
                        if part.remaking == .fromMedia { continue }
                        throw Tar.Damage("\(path) is not the \(part.name) of its clip (a value no \(part.name) has, or a time past the clip's end)")
                    }
                    try store.files?.writeAtomically(target, doing: "restore a clip to") { try $0.write(restored) }
                    made.append(target)
                    extracted[clip.id]!.artefacts.append(target)
                default:
                    if name?.part == .media, let id = name?.clip.id, have.contains(id) { alreadyThere += 1 }
                    try reader.read(entry) { report($0.count) }
                }
            }
            guard input.isEncrypted || (try? Stamp(archive)) == checked.stamp else { throw Tar.Damage("it changed while it was restored") }
        }
        // Every clip's media as its record says, before any is saved.
        if let checking {
            for (id, clip) in extracted { try checking(clip.media, clips[id]!.record.recording) }
        }
        var addedMeanwhile: [StoredFile] = []
        let (restored, reminders): ([Recording], Int) = try store.write { tx in
            var saving: [(file: StoredFile, recording: Recording, plays: [PlayEvent])] = []
            for (id, clip) in extracted.sorted(by: { $0.key.description < $1.key.description }) {
                let record = clips[id]!.record
                if try tx.repository.recording(id) != nil {
                    // Another restore saved it meanwhile: this one's copy of its media goes (its
                    // thumbnail and waveform, the same bytes, are the saved clip's now).
                    alreadyThere += 1
                    addedMeanwhile.append(clip.media)
                    continue
                }
                var row = record.recording
                row.thumbnailPath = ClipFiles(row).file(.thumbnail).flatMap { clip.artefacts.contains($0) ? $0.path : nil }
                saving.append((clip.media, row, record.plays))
            }
            _ = try LibraryVocabulary.merge(checked.words, into: tx.db)
            let restored = try tx.save(saving)
            return (restored, try Reminder.restore(checked.reminders, in: tx.db))
        }
        made = addedMeanwhile  // the rest is saved: the library's now
        return (restored, alreadyThere, blocked, reminders)
    }

    /// Creates `file` (a clip's `.importing` name) for this restore; nil when another process is
    /// writing it (another restore of the same backup); one a crash left is removed first.
    private static func claim(_ file: StoredFile, in store: LibraryStore) throws -> MediaFile? {
        do {
            return try store.create(file)
        } catch Errno.fileExists {
            guard store.claim(file) else { return nil }
            store.remove(file)
            return try store.create(file)
        }
    }

    /// Runs a write into the library, whose `Errno` is a failure to restore to `url` (a full
    /// disk), not to read the archive.
    private static func written<T>(_ file: StoredFile, in store: LibraryStore, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as Errno {
            throw FileStorageManager.writeError(error.rawValue, store.files?.url(of: file) ?? URL(fileURLWithPath: file.path),
                                                doing: "restore a clip to")
        }
    }

    /// Opens the archive: a regular file outside the library folder.
    private static func open(_ url: URL, outside library: URL) throws -> FileDescriptor {
        if let file = FileStorageManager.realPath(url), let root = FileStorageManager.realPath(library),
           file.hasPrefix(root + "/") {
            throw CraveyError(.invalidInput, "Refusing to restore from \(url.path): it is inside the library folder \(library.path). Move the backup out of it first.")
        }
        // Never waiting on a named pipe: it is refused below, as anything but a regular file is.
        let descriptor = Foundation.open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { throw CraveyError(.notFound, "There is no backup at \(url.path).") }
            throw CraveyError(.other, "Cannot read the backup \(url.path): \(String(cString: strerror(code))).", underlying: Errno(rawValue: code))
        }
        let file = FileDescriptor(rawValue: descriptor)
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            try? file.close()
            throw CraveyError(.invalidInput, "Refusing to restore from \(url.path): it is not a regular file (a backup is one file that cravey backup wrote).")
        }
        _ = fcntl(descriptor, F_SETFL, O_RDONLY)  // reads of the regular file block as usual
        return file
    }

    /// Runs `body`, turning a damaged archive into the error that says so.
    private static func damage<T>(_ url: URL, _ outcome: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let damage as Tar.Damage {
            throw CraveyError(.damagedArchive, "\(url.path) is not a whole cravey backup: \(damage.reason). \(outcome)",
                              underlying: damage)
        } catch let refusal as Age.Refusal {
            throw CraveyError(refusal, opening: url, outcome)
        } catch let error as Errno {
            throw CraveyError(.other, "Cannot read the backup \(url.path): \(error.description).", underlying: error)
        }
    }

    /// The manifest's line for `path`.
    private static func expected(_ path: String, of clips: [RecordingID: Clip]) throws(Tar.Damage) -> Manifest.File {
        if path == manifestName || path == remindersName || path == wordsName || part(path)?.part == .copy {
            return Manifest.File(path: path, size: 0, sha256: "")
        }
        if let name = part(path), let file = clips[name.clip.id]?.file(name.part), file.path == path { return file }
        throw Tar.Damage("\(path) was not in it when it was checked")
    }

    /// The next entry; a first that is no tar header is no backup at all.
    private static func next(of reader: Tar.Reader, first: Bool) throws -> Tar.Entry? {
        do {
            return try reader.next()
        } catch let damage as Tar.Damage where first {
            throw Tar.Damage("it is not a tar archive, which a backup is (\(damage.reason))")
        }
    }

    /// The first reading: every entry is a file of a backup, once, and every byte is what the
    /// manifest says; every record names its media and is the clip its name says, and the
    /// reminders are reminders and the words words. Returns the clips by id, the reminders and
    /// the words. Throws ``Tar/Damage``, or `.newerLibrary` for a backup of a newer format.
    private static func check(_ reader: Tar.Reader, report: (Int) -> Void) throws
        -> (clips: [RecordingID: Clip], reminders: [Reminder], words: [VocabularyWord]) {
        var found: [String: Manifest.File] = [:]
        var records: [String: Data] = [:]
        var manifestData: Data?
        var first = true
        while let entry = try next(of: reader, first: first) {
            first = false
            if entry.isFolder {
                guard folders.contains(entry.name), entry.size == 0 else { throw Tar.Damage("it holds the folder \(entry.name), which is no folder of a cravey backup") }
                continue
            }
            let path = String(entry.name.dropFirst(folder.count + 1))
            let isManifest = path == manifestName
            let libraryFile = path == remindersName || path == wordsName
            guard entry.name.hasPrefix(folder + "/"), isManifest || libraryFile || part(path) != nil else {
                throw Tar.Damage("it holds \(entry.name), which is no file of a cravey backup")
            }
            guard found[path] == nil, !(isManifest && manifestData != nil) else { throw Tar.Damage("it holds \(path) twice") }
            let keep = isManifest || libraryFile || part(path)?.part == .copy
            guard !keep || entry.size <= largestRecord else { throw Tar.Damage("\(path) is too large to be a record") }
            let hash = SHA256()
            var kept = Data()
            try reader.read(entry) { bytes in
                hash.update(bytes)
                if keep { kept.append(contentsOf: bytes) }
                report(bytes.count)
            }
            if isManifest {
                manifestData = kept
            } else {
                found[path] = Manifest.File(path: path, size: entry.size, sha256: hash.hexDigest())
                if keep { records[path] = kept }
            }
        }
        guard let manifestData else { throw Tar.Damage("it has no manifest.json") }
        guard let manifest = try? Manifest.decoder.decode(Manifest.self, from: manifestData), manifest.format == Manifest.format else {
            throw Tar.Damage("its manifest.json is not a cravey backup's")
        }
        guard manifest.version <= Manifest.version else {
            throw CraveyError(.newerLibrary, "This backup was written by cravey \(manifest.writtenBy), in a newer format than this cravey (\(RecordingLibrary.programVersion)) reads. Nothing was restored.",
                              advice: .upgrade)
        }
        let listed = Dictionary(manifest.files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        guard listed.count == manifest.files.count else { throw Tar.Damage("its manifest lists a file twice") }
        for (path, file) in found where listed[path] != file {
            throw Tar.Damage(listed[path] == nil ? "\(path) is not in its manifest" : "\(path) is not what was backed up (its size or checksum differs)")
        }
        if let missing = listed.keys.first(where: { found[$0] == nil }) { throw Tar.Damage("\(missing) is missing") }

        var reminders: [Reminder] = []
        if let data = records.removeValue(forKey: remindersName) {
            do {
                reminders = try JSONDecoder().decode([Reminder].self, from: data)
            } catch {
                throw Tar.Damage("its \(remindersName) holds something that is no reminder")
            }
        }
        // The person's own words, each one a word takes (``VocabularyWord``).
        var words: [VocabularyWord] = []
        if let data = records.removeValue(forKey: wordsName) {
            guard let decoded = try? Manifest.decoder.decode([VocabularyWord].self, from: data) else {
                throw Tar.Damage("its \(wordsName) holds what is not a list of words")
            }
            words = decoded
        }
        var clips: [RecordingID: Clip] = [:]
        for (path, data) in records {
            guard let clip = part(path)?.clip, let record = ClipRecord(decoding: data),
                  record.recording.id == clip.id, record.recording.type == clip.type,
                  let media = found[record.recording.filePath],
                  record.recording.filePath == clip.media().path,
                  record.recording.thumbnailPath.map({ $0 == clip.file(.thumbnail)?.path && found[$0] != nil }) ?? true else {
                throw Tar.Damage("\(path) is not the record of the clip its name says")
            }
            // Every value as a fresh recording's could be: one that is not refuses the backup
            // whole, naming the clip and the field.
            let problems = record.recording.problems(plays: record.plays)
            guard problems.isEmpty else {
                throw Tar.Damage("the clip \(CraveyError.quoted(record.recording.title, "\"")) (\(clip.id.description)) holds values no clip has: "
                                 + problems.map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }.joined(separator: "; "))
            }
            var checked = Clip(record: record, media: media)
            for part in carried {
                // A thumbnail comes with its clip when its record names it; any other part when
                // it is there.
                let file = part == .thumbnail ? record.recording.thumbnailPath : clip.file(part)?.path
                checked.parts[part] = file.flatMap { found[$0] }
            }
            clips[clip.id] = checked
        }
        for path in found.keys {
            guard let name = part(path), name.part != .copy else { continue }
            guard clips[name.clip.id]?.file(name.part)?.path == path else { throw Tar.Damage("\(path) has no record") }
        }
        return (clips, reminders, words)
    }
}
