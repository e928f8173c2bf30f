import CraveyCore
import CraveyKit
import Foundation

/// What the fuzzers feed hostile bytes to. Each target must only ever throw a ``CraveyError`` (or
/// return): a crash, an ASan report, a leak, a hang, or a broken promise (checked with
/// `preconditionFailure`) is a finding.
enum FuzzTarget: String, CaseIterable {
    /// Probing a file as every command does: its streams, its duration, whether it plays.
    case probe
    /// A video's thumbnail: seek, decode, scale, turn, encode a JPEG.
    case thumbnail
    /// `cravey import`: a file into a library, refused whole (nothing stored) or stored whole.
    case `import`
    /// Text a person types: an id prefix, a title and notes, and the CSV cells they become.
    case text
    /// `cravey restore`: an archive restored into an empty library, refused whole (nothing
    /// changed) or restored with every clip's values ones a clip can have.
    case restore
    /// A clip's own copy of its words, read by a repair after its database is lost: the clip
    /// registered as it says, with values a clip can have, or left (and said), never a crash.
    case copy

    /// The target the driver runs; set once before the first input.
    nonisolated(unsafe) static var selected: FuzzTarget?

    func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .probe: Self.probe(Self.file(holding: bytes))
        case .thumbnail: _ = try? Thumbnailer.jpeg(forVideoAt: .outside(Self.file(holding: bytes)))
        case .import: Self.importFile(Self.file(holding: bytes))
        case .text: Self.text(String(decoding: bytes, as: UTF8.self))
        case .restore: Self.restore(Self.file(holding: bytes))
        case .copy: Self.copy(Data(bytes))
        }
    }

    // MARK: Media

    /// This process's scratch folder: `$CRAVEY_FUZZ_SCRATCH` when the caller made one (and
    /// removes it, however the run ends: `scripts/fuzz`, the regression tests), else one of its
    /// own, in memory when /dev/shm is there, removed at a normal exit.
    static let scratch: URL = {
        if let given = ProcessInfo.processInfo.environment["CRAVEY_FUZZ_SCRATCH"], !given.isEmpty {
            let url = URL(fileURLWithPath: given)
            try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
        let shm = URL(fileURLWithPath: "/dev/shm")
        let base = FileManager.default.fileExists(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
        let url = base.appendingPathComponent("cravey-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: FuzzTarget.scratch) }
        return url
    }()

    /// The input written to a file (FFmpeg reads files; one path, rewritten for every input).
    static func file(holding bytes: UnsafeRawBufferPointer) -> URL {
        let url = scratch.appendingPathComponent("input")
        guard (try? Data(bytes).write(to: url)) != nil else { preconditionFailure("cannot write \(url.path)") }
        return url
    }

    static func probe(_ url: URL) {
        if let info = try? MediaProbe.info(of: .outside(url)), let duration = info.containerDuration {
            precondition(duration.isFinite && duration > 0, "container duration \(duration)")
        }
        if let duration = try? MediaProbe.duration(of: .outside(url)) {
            precondition(duration.isFinite && duration >= 0, "duration \(duration)")
        }
        _ = try? MediaProbe.playableDuration(of: .outside(url))
    }

    /// One library for the whole run, emptied after every import that succeeded.
    static let library: RecordingLibrary = {
        guard let library = try? RecordingLibrary(at: scratch.appendingPathComponent("library")) else {
            preconditionFailure("cannot make a library in \(scratch.path)")
        }
        return library
    }()

    static func importFile(_ url: URL) {
        do {
            let recording = try Importer.importFile(url, into: library.store, metadata: RecordingMetadata(title: "Fuzz"))
            precondition(recording.duration.isFinite && recording.duration >= 0, "stored duration \(recording.duration)")
            let rows = try library.count()
            precondition(rows == 1, "one import, \(rows) rows")
            try library.delete(recording.id)
        } catch let error as CraveyError {
            // Refused: then nothing at all was stored.
            precondition((try? library.count()) == 0, "a refused import left a row: \(error.message)")
            let left = library.store.storedFiles()
            precondition(left.isEmpty, "a refused import left \(left): \(error.message)")
        } catch {
            preconditionFailure("import threw \(type(of: error)): \(error)")
        }
    }

    // MARK: Restore and copies

    /// Restores the archive at `url` into a new, empty library, which it then removes.
    static func restore(_ url: URL) {
        let folder = scratch.appendingPathComponent("restored")
        try? FileManager.default.removeItem(at: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        guard let library = try? RecordingLibrary(at: folder) else { preconditionFailure("cannot make a library in \(folder.path)") }
        do {
            let summary = try library.archive.restore(from: url)
            for recording in try library.recordings() {
                let plays = try library.plays(of: recording.id)
                precondition(recording.problems(plays: plays).isEmpty, "restored \(recording.id): \(recording.problems(plays: plays))")
            }
            let rows = try library.count()
            precondition(rows == summary.restored.count, "restored \(summary.restored.count), \(rows) rows")
        } catch let error as CraveyError {
            // Refused: then nothing at all was stored.
            precondition((try? library.count()) == 0, "a refused restore left a row: \(error.message)")
            let left = library.store.storedFiles()
            precondition(left.isEmpty, "a refused restore left \(left): \(error.message)")
        } catch {
            preconditionFailure("restore threw \(type(of: error)): \(error)")
        }
    }

    /// A short AAC clip of the repository's fixtures, the orphan's media.
    static let tone = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Media/tone.m4a")

    /// The clip whose copy the `copy` target writes: its media, an orphan (its database lost).
    static let orphan = ClipFiles(id: RecordingID("c0b1e5e5-0000-4000-8000-00000000c0b1")!, type: .audio)

    /// Reads `bytes` as a clip's copy, and has a repair register its clip from it, in a library
    /// whose database is lost.
    static func copy(_ bytes: Data) {
        // A record that reads writes back as bytes that read as the same record.
        if let record = ClipRecord(decoding: bytes) {
            let again = record.encoded()
            precondition(ClipRecord(decoding: again)?.encoded() == again, "a record does not read back as itself")
        }
        let folder = scratch.appendingPathComponent("orphaned")
        try? FileManager.default.removeItem(at: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let library = try RecordingLibrary(at: folder)
            try FileManager.default.copyItem(at: tone, to: library.url.appendingPathComponent(orphan.media().path))
            try bytes.write(to: library.url.appendingPathComponent(orphan.file(.copy)!.path))
            let report = try library.doctor.examine(repair: true, deleteUnplayable: false)
            for recording in try library.recordings() {
                let plays = try library.plays(of: recording.id)
                let problems = recording.problems(plays: plays)
                precondition(problems.isEmpty, "registered \(recording.id) with \(problems)")
            }
            let rows = try library.count()
            precondition(rows == 1 || report.findings(.notRepaired).count == 1, "neither registered nor left: \(report)")
        } catch let error as CraveyError {
            preconditionFailure("a repair threw on a copy: \(error.message)")
        } catch {
            preconditionFailure("a repair threw \(type(of: error)): \(error)")
        }
    }

    // MARK: Text

    /// A library holding three clips with known ids, for id prefixes to match against.
    static let clips: RecordingLibrary = {
        guard let library = try? RecordingLibrary(at: scratch.appendingPathComponent("clips")) else {
            preconditionFailure("cannot make a library in \(scratch.path)")
        }
        for id in ["3f2a0000-0000-4000-8000-000000000001", "3f2b0000-0000-4000-8000-000000000002",
                   "a0000000-0000-4000-8000-000000000003"] {
            let recording = Recording(id: RecordingID(id)!, type: .audio, title: "Clip", duration: 1,
                                      filePath: "Recordings/audio_\(id).m4a", fileSize: 1)
            guard (try? library.store.write({ tx in try tx.repository.insert(recording) })) != nil else { preconditionFailure("cannot insert \(id)") }
        }
        return library
    }()

    static func text(_ text: String) {
        // An id prefix finds the one clip whose id starts with it, or is refused.
        if let found = try? clips.recording(matching: text) {
            precondition(found.id.description.hasPrefix(text.lowercased()), "'\(text)' found \(found.id)")
        }
        // A title or notes is refused, or kept as typed (trimmed), within its limit and free of
        // control characters (line breaks allowed in notes).
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        func control(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .control }
        if let title = (try? RecordingMetadata(title: text))?.title {
            precondition(title == trimmed, "title \(text.debugDescription) kept as \(title.debugDescription)")
            precondition(title.count <= RecordingMetadata.maxTitleLength && !title.unicodeScalars.contains(where: control),
                         "title \(title.debugDescription) accepted")
        }
        if let notes = (try? RecordingMetadata(notes: text))?.notes {
            precondition(notes == trimmed, "notes \(text.debugDescription) kept as \(notes.debugDescription)")
            precondition(notes.count <= RecordingMetadata.maxNotesLength
                         && !notes.unicodeScalars.contains { control($0) && $0 != "\n" }, "notes \(notes.debugDescription) accepted")
        }
        // A cell of the CSV export reads back as what was stored (with the apostrophe that keeps
        // a formula inert, unless raw).
        let recording = Recording(type: .audio, title: text, notes: text, duration: 1, filePath: "Recordings/x.m4a", fileSize: 1)
        for raw in [false, true] {
            let rows = parseCSV(RecordingCSV.text([recording], raw: raw))
            let expected = raw ? text : RecordingCSV.inert(text)
            precondition(rows.count == 2 && rows[1].count == RecordingCSV.columns.count,
                         "the CSV of \(text.debugDescription) has \(rows.count) rows: \(rows)")
            precondition(rows[1][2] == expected && rows[1][3] == expected,
                         "\(text.debugDescription) came back as \(rows[1][2].debugDescription)")
        }
    }

    /// Reads CSV as RFC 4180 does: CRLF between records, quoted fields with doubled quotes.
    static func parseCSV(_ csv: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = String.UnicodeScalarView()
        var quoted = false, scalars = Array(csv.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            if quoted {
                if scalar == "\"" {
                    if scalars.first == "\"" { scalars.removeFirst(); field.append("\"") } else { quoted = false }
                } else {
                    field.append(scalar)
                }
            } else if scalar == "\"" {
                quoted = true
            } else if scalar == "," {
                row.append(String(field)); field = String.UnicodeScalarView()
            } else if scalar == "\r", scalars.first == "\n" {
                scalars.removeFirst()
                row.append(String(field)); field = String.UnicodeScalarView()
                rows.append(row); row = []
            } else {
                field.append(scalar)
            }
        }
        if !field.isEmpty || !row.isEmpty { row.append(String(field)); rows.append(row) }
        return rows
    }
}
