import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// What cravey reads is checked where it enters: a row, a clip's copy or a backup holding values
/// no clip has is reported and never takes the rest of the library down. (Deleted words leave
/// every file, and a loudness no measurement gives: in process, CraveyCommandsTests'
/// LibraryCommandTests and CraveyCoreTests' LoudnessMeasurementTests.)
@Suite("Trust nothing it reads", .temporaryFiles)
struct TrustNothingTests {
    @Test("rows with values no clip has (a date past year 9999, an infinite length, a loudness of +200 LUFS, a negative play count, a play count of 2^63-1 over one play) are listed, played and reported; repair sets what it can tell")
    func impossibleRows() async throws {
        // Given a library whose rows were edited by hand
        let library = try await Fixture.library(titles: ["Future", "Endless", "Loud", "Negative", "Leader"])
        let byTitle = Dictionary(uniqueKeysWithValues: try library.recordings().map { ($0.title, $0.id.description) })
        try library.countPlay(of: try #require(try library.recording(RecordingID(byTitle["Leader"]!)!)))
        let database = library.url.appendingPathComponent("library.sqlite").path
        let edit = try await run("sqlite3", [database, """
            UPDATE recording SET createdAt = '275760-09-13 00:00:00.000' WHERE id = '\(byTitle["Future"]!)';
            UPDATE recording SET duration = 9e999 WHERE id = '\(byTitle["Endless"]!)';
            UPDATE recording SET loudnessIntegrated = 200, loudnessTruePeak = 180 WHERE id = '\(byTitle["Loud"]!)';
            UPDATE recording SET playCount = -5 WHERE id = '\(byTitle["Negative"]!)';
            UPDATE recording SET playCount = 9223372036854775807 WHERE id = '\(byTitle["Leader"]!)';
            """])
        try #require(edit.status == 0, "\(edit.error)")
        let path = library.url.path

        // When the library is listed, a clip shown and played, and the doctor looks and repairs
        let list = try await Cravey.run(["list", "--json", "--library", path])
        let info = try await Cravey.run(["info", byTitle["Endless"]!, "--library", path])
        let quickplay = try await Cravey.run(["quickplay", "--library", path])
        let doctor = try await Cravey.run(["doctor", "--library", path])
        let repair = try await Cravey.run(["doctor", "--repair", "--library", path])
        let after = try await Cravey.run(["doctor", "--library", path])

        // Then nothing crashes, every clip is listed, the doctor names each bad row, and after the
        // repair the library is healthy, with the length its file has
        #expect(list.status == 0 && info.status == 0 && quickplay.status == 0, "\(list.error) \(info.error) \(quickplay.error)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])
        #expect(listed.count == 5)
        #expect(doctor.status == 1, "\(doctor.output)")
        for title in ["Future", "Endless", "Loud", "Negative", "Leader"] {
            #expect(doctor.output.contains("impossible values: \"\(title)\""), "\(title): \(doctor.output)")
        }
        #expect(repair.status == 0 && after.status == 0, "\(repair.output) \(repair.error) \(after.output)")
        let endless = try #require(try library.recording(RecordingID(byTitle["Endless"]!)!))
        #expect(abs(endless.duration - 0.5) < 0.1)
        #expect(try library.recording(RecordingID(byTitle["Loud"]!)!)?.loudness.map { $0.integrated < 0 } ?? true)
        #expect(try library.recording(RecordingID(byTitle["Leader"]!)!)?.playCount == 1, "the count of its one play")
        #expect(try library.recording(RecordingID(byTitle["Negative"]!)!)?.playCount == 0)
    }

    @Test("a row whose id is no RecordingID is reported, and every other row works")
    func unreadableRow() async throws {
        // Given a library with one row whose id was edited into something else
        let library = try await Fixture.library(titles: ["Good", "Also good"])
        let database = library.url.appendingPathComponent("library.sqlite").path
        let good = try #require(try library.recordings().first)
        let edit = try await run("sqlite3", [database, """
            INSERT INTO recording (id, type, title, createdAt, duration, filePath, fileSize, playCount)
            VALUES ('not-a-uuid', 'audio', 'Hand made', '2026-01-01 00:00:00.000', 1, 'Recordings/x.m4a', 1, 0);
            """])
        try #require(edit.status == 0, "\(edit.error)")

        // When it is listed, a clip played, and the doctor looks
        let list = try await Cravey.run(["list", "--library", library.url.path])
        let info = try await Cravey.run(["info", good.id.uuid.uuidString, "--library", library.url.path])
        let doctor = try await Cravey.run(["doctor", "--library", library.url.path])

        // Then the two good clips work and the doctor names the row
        #expect(list.status == 0 && list.output.contains("Good") && list.output.contains("Also good"), "\(list.error)")
        #expect(info.status == 0, "\(info.error)")
        #expect(doctor.status == 1 && doctor.output.contains("unreadable row: the id 'not-a-uuid'"), "\(doctor.output)")
    }

    @Test("after the database is lost, a copy that is not its clip's record and a copy that is a link are left and said, and every other clip is registered")
    func badCopiesDoNotBlockRecovery() async throws {
        // Given a library of four clips whose database is lost, one clip's copy naming another
        // clip's plays and another's copy replaced by a link
        let library = try await Fixture.library(titles: ["One", "Two", "Three", "Four"])
        let rows = try library.recordings()
        for row in rows { try library.countPlay(of: row) }
        let copy = { (row: Recording) in library.fileURL(ClipFiles(row).file(.copy)!) }
        let lying = try String(contentsOf: copy(rows[0]), encoding: .utf8)
        try lying.replacingOccurrences(of: "\"completed\"", with: "\"recordingId\" : \"\(RecordingID().description)\",\n      \"completed\"")
            .write(to: copy(rows[0]), atomically: true, encoding: .utf8)
        let outside = temporaryFolder().appendingPathComponent("outside.json")
        try FileManager.default.copyItem(at: copy(rows[1]), to: outside)
        try FileManager.default.removeItem(at: copy(rows[1]))
        try FileManager.default.createSymbolicLink(at: copy(rows[1]), withDestinationURL: outside)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(at: library.url.appendingPathComponent("library.sqlite" + suffix))
        }

        // When it is repaired, twice
        let repair = try await Cravey.run(["doctor", "--repair", "--library", library.url.path])
        let again = try await Cravey.run(["doctor", "--repair", "--library", library.url.path])

        // Then the two good clips are back with their words, the two others are left, each named
        // with why, and the file outside is as it was
        let back = try RecordingLibrary(at: library.url).recordings()
        #expect(Set(back.map(\.title)) == Set([rows[2].title, rows[3].title]), "\(repair.output) \(repair.error)")
        #expect(repair.output.contains("Left \(ClipFiles(rows[0]).media().path) unregistered") && repair.output.contains("is not a record of it"),
                "\(repair.output)")
        #expect(repair.output.contains("Left \(ClipFiles(rows[1]).media().path) unregistered"), "\(repair.output)")
        #expect(again.output.contains("Left"), "\(again.output)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: copy(rows[1]).path) == outside.path)
    }

    /// Runs cravey with `arguments`, killing it if it has not ended within `seconds`; nil then.
    func runWithin(_ seconds: Double, _ arguments: [String]) async throws -> (status: Int32, output: String)? {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: Cravey.executable)
        process.arguments = arguments
        process.environment = Cravey.environment()
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let output = temporaryFolder().appendingPathComponent("output-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        let ended = try await poll(within: seconds, every: 0.01) { !process.isRunning }
        if !ended {
            process.terminate()
            await exit(of: process)
            return nil
        }
        return (process.terminationStatus, try String(contentsOf: output, encoding: .utf8))
    }

    @Test("a named pipe where a clip's copy or waveform belongs is reported, never waited on: info, waveform, doctor and doctor --repair end, and an edit is not kept waiting")
    func pipesAreNotRead() async throws {
        // Given a clip whose copy and waveform are named pipes nobody writes to
        let library = try await Fixture.library(titles: ["Piped"])
        let clip = ClipFiles(try #require(try library.recordings().first))
        for part in [ClipFiles.Part.copy, .waveform] {
            let file = library.fileURL(try #require(clip.file(part)))
            try? FileManager.default.removeItem(at: file)
            try #require(mkfifo(file.path, 0o600) == 0)
        }
        let path = library.url.path, id = clip.id.uuid.uuidString

        // When it is shown, its waveform asked for, the library examined and repaired, and edited
        let info = try await runWithin(20, ["info", id, "--library", path])
        let waveform = try await runWithin(20, ["waveform", id, "--json", "--library", path])
        let doctor = try await runWithin(20, ["doctor", "--library", path])
        let repair = try await runWithin(20, ["doctor", "--repair", "--library", path])
        let edit = try await runWithin(20, ["edit", id, "--title", "Edited", "--library", path])

        // Then each ended, the doctor names both pipes, and they are still pipes
        #expect(info?.status == 0 && waveform != nil && edit != nil, "\(String(describing: info)) \(String(describing: waveform))")
        let seen = try #require(doctor)
        #expect(seen.status == 1 && seen.output.contains("\(clip.file(.copy)!.path) (a named pipe)")
                && seen.output.contains("\(clip.file(.waveform)!.path) (a named pipe)"), "\(seen.output)")
        #expect(repair?.status == 1, "\(String(describing: repair))")
        var info2 = stat()
        #expect(lstat(library.fileURL(clip.file(.copy)!).path, &info2) == 0 && info2.st_mode & S_IFMT == S_IFIFO)
    }

    @Test("a backup killed while it writes leaves nothing in the folder it was writing to, not even a hidden file")
    func killedBackupLeavesNothing() async throws {
        // Given a library holding 64 MB of media
        let library = try RecordingLibrary(at: temporaryLibrary())
        let clip = ClipFiles(id: RecordingID(), type: .audio)
        let media = try library.store.create(clip.media(.importing))
        let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        for _ in 0..<64 { try media.write(block) }
        try media.close()
        try library.store.write { tx in
            _ = try tx.save(clip.media(.importing), as: Recording(id: clip.id, type: .audio, title: "Big", duration: 1, filePath: "", fileSize: 0))
        }
        let output = temporaryFolder().appendingPathComponent("backups-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)

        // When its backup is stopped once it has written some of it, and killed
        let process = try Cravey.start(["backup", "--output", output.appendingPathComponent("clips.tar").path, "--library", library.url.path])
        let written = { @Sendable () -> Int in
            let io = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/io", encoding: .utf8)) ?? ""
            return io.split(separator: "\n").first { $0.hasPrefix("wchar:") }.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        }
        // (Polled: no event says what the process wrote so far.)
        let stoppedAt = Locked<Int?>(nil)
        _ = try await poll(within: 600, every: 0.0002) {
            guard process.isRunning else { return true }
            guard written() > 1 << 20 else { return false }
            kill(process.processIdentifier, SIGSTOP)
            stoppedAt.withLock { $0 = written() }
            return true
        }
        let midway = stoppedAt.withLock { $0.map { $0 < 48 << 20 } ?? false }
        kill(process.processIdentifier, SIGKILL)
        await exit(of: process)

        // Then nothing is there
        #expect(midway, "the backup was not stopped part way")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).isEmpty)
    }

    /// A backup of `library`, taken apart, changed by `change` (given its cravey-backup/ folder)
    /// and put together again with a manifest that agrees with what is in it: an archive whose
    /// checksums say nothing against it.
    func rebuiltBackup(of library: RecordingLibrary, _ change: (URL) throws -> Void) async throws -> URL {
        let archive = temporaryFolder().appendingPathComponent("original-\(UUID().uuidString.prefix(8)).tar")
        let made = try await Cravey.run(["backup", "--output", archive.path, "--library", library.url.path])
        try #require(made.status == 0, "\(made.error)")
        let folder = temporaryFolder().appendingPathComponent("unpacked-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try #require(try await run("tar", ["-xf", archive.path, "-C", folder.path]).status == 0)
        try change(folder.appendingPathComponent("cravey-backup"))
        let rebuilt = temporaryFolder().appendingPathComponent("rebuilt-\(UUID().uuidString.prefix(8)).tar")
        let script = """
            import hashlib, json, os, sys, tarfile
            root, out = sys.argv[1], sys.argv[2]
            path = os.path.join(root, "cravey-backup", "manifest.json")
            manifest = json.load(open(path))
            for entry in manifest["files"]:
                data = open(os.path.join(root, "cravey-backup", entry["path"]), "rb").read()
                entry["size"], entry["sha256"] = len(data), hashlib.sha256(data).hexdigest()
            json.dump(manifest, open(path, "w"), indent=2, sort_keys=True)
            with tarfile.open(out, "w", format=tarfile.USTAR_FORMAT) as tar:
                for folder in ["cravey-backup", "cravey-backup/Recordings", "cravey-backup/Recordings/Thumbnails"]:
                    tar.add(os.path.join(root, folder), arcname=folder, recursive=False)
                for folder in ["cravey-backup/Recordings", "cravey-backup/Recordings/Thumbnails"]:
                    for name in sorted(os.listdir(os.path.join(root, folder))):
                        if name != "Thumbnails":
                            tar.add(os.path.join(root, folder, name), arcname=folder + "/" + name)
                tar.add(path, arcname="cravey-backup/manifest.json")
            """
        let packed = try await run("python3", ["-c", script, folder.path, rebuilt.path])
        try #require(packed.status == 0, "\(packed.error)")
        return rebuilt
    }

    @Test("a backup whose record holds a value no clip has (a loudness no measurement gives, a play count that is not the number of its plays), or whose media does not decode, with a manifest that agrees, restores nothing (65, naming the clip and what), and the library is unchanged")
    func badBackupsRefusedWhole() async throws {
        // Given a library of two clips, one played once, and backups of it with one value or one file changed
        let library = try await Fixture.library(titles: ["Kept", "Changed"])
        var changed = try #require(try library.recordings().first { $0.title == "Changed" })
        changed = try library.countPlay(of: changed, secondsListened: 0.5, completed: true)
        let record = { (folder: URL) in folder.appendingPathComponent(ClipFiles(changed).file(.copy)!.path) }
        func editRecord(_ from: String, _ to: String) -> (URL) throws -> Void {
            { folder in
                let text = try String(contentsOf: record(folder), encoding: .utf8)
                try #require(text.contains(from), "\(text)")
                try text.replacingOccurrences(of: from, with: to).write(to: record(folder), atomically: true, encoding: .utf8)
            }
        }
        let cases: [(String, (URL) throws -> Void, String)] = [
            ("a date past year 9999", editRecord("\"createdAt\" : \"2026", "\"createdAt\" : \"9026"), "createdAt"),
            ("an infinite length", editRecord("\"duration\" : 0.5", "\"duration\" : \"inf\""), "duration"),
            ("a length its media does not have", editRecord("\"duration\" : 0.5", "\"duration\" : 90"), "duration"),
            ("a negative play count", editRecord("\"playCount\" : 1", "\"playCount\" : -3"), "playCount"),
            // A count its plays do not make, which would own Quick Play for good: the largest, one
            // more than its plays, one fewer, none.
            ("a play count of 2^63-1", editRecord("\"playCount\" : 1", "\"playCount\" : 9223372036854775807"), "playCount"),
            ("a play count one over its plays", editRecord("\"playCount\" : 1", "\"playCount\" : 2"), "playCount"),
            ("a play count one under its plays", editRecord("\"playCount\" : 1", "\"playCount\" : 0"), "playCount"),
            ("a play count of -0 with a play", editRecord("\"playCount\" : 1", "\"playCount\" : -0"), "playCount"),
            ("a play count of 1,000,000", editRecord("\"playCount\" : 1", "\"playCount\" : 1000000"), "playCount"),
            ("a loudness of -200 LUFS", editRecord("\"loudness\" : null", "\"loudness\" : { \"integrated\" : -200, \"truePeak\" : -3 }"), "loudness"),
            ("a loudness of NaN", editRecord("\"loudness\" : null", "\"loudness\" : { \"integrated\" : \"nan\", \"truePeak\" : -3 }"), "loudness"),
            ("a loudness of +inf", editRecord("\"loudness\" : null", "\"loudness\" : { \"integrated\" : \"inf\", \"truePeak\" : -3 }"), "loudness"),
            ("a loudness of 1e308", editRecord("\"loudness\" : null", "\"loudness\" : { \"integrated\" : 1e308, \"truePeak\" : -3 }"), "loudness"),
            ("a loudness of -71 LUFS, under the gate", editRecord("\"loudness\" : null", "\"loudness\" : { \"integrated\" : -71, \"truePeak\" : -3 }"), "loudness"),
            ("a true peak of NaN", editRecord("\"loudness\" : null", "\"loudness\" : { \"integrated\" : -20, \"truePeak\" : \"nan\" }"), "loudness"),
            ("a true peak of +inf", editRecord("\"loudness\" : null", "\"loudness\" : { \"integrated\" : -20, \"truePeak\" : \"inf\" }"), "loudness"),
            ("a true peak of -1e300", editRecord("\"loudness\" : null", "\"loudness\" : { \"integrated\" : \"-inf\", \"truePeak\" : -1e300 }"), "loudness"),
            ("a title with an escape", editRecord("\"title\" : \"Changed\"", "\"title\" : \"Chan\\u001bged\""), "title"),
            ("media that does not decode", { folder in
                try Data(repeating: 0x5A, count: 4096).write(to: folder.appendingPathComponent(changed.filePath))
            }, "does not decode"),
        ]
        for (what, change, field) in cases {
            let archive = try await rebuiltBackup(of: library, change)

            // When it is restored into a new library
            let into = temporaryLibrary()
            try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
            let restore = try await Cravey.run(["restore", archive.path, "--library", into.path])

            // Then nothing is restored, and the message names the clip and what is wrong
            #expect(restore.status == 65 && restore.error.contains("Chan") && restore.error.contains(field), "\(what): \(restore.status) \(restore.error)")
            let left = (try? RecordingLibrary(at: into, creating: false))
            #expect(try left?.count() ?? 0 == 0, "\(what)")
            #expect(left?.store.storedFiles().isEmpty ?? true, "\(what): \(left?.store.storedFiles() ?? [])")
        }
    }

    @Test("a backup whose words lie (past the clip's end, at 1e300 s) or whose language is no code (an escape sequence, 100 KB), with a manifest that agrees, restores nothing (65, naming the words); words a little past the end are cut to it")
    func lyingWordsRefused() async throws {
        // Given a clip of 0.5 s with words, and backups of it with its words changed
        let library = try await Fixture.library(titles: ["Spoken"])
        let clip = try #require(try library.recordings().first)
        let words = { (start: String, end: String, language: String) in
            Data(#"{"language":"\#(language)","words":[{"end":0.3,"start":0.1,"text":"Ahoy"},{"end":\#(end),"start":\#(start),"text":"there."}]}"#.utf8)
        }
        try library.store.write { tx in _ = try tx.store(words("0.3", "0.45", "en"), as: .transcript, of: ClipFiles(clip)) }
        let file = ClipFiles(clip).file(.transcript)!.path
        let cases: [(String, Data)] = [
            ("a word 3 s past the end", words("3.5", "3.9", "en")),
            ("a word at 1e300 s", words("1e300", "1e300", "en")),
            ("a language holding an escape", words("0.3", "0.45", #"en\u001b[2J"#)),
            ("a language of 100 KB", words("0.3", "0.45", String(repeating: "e", count: 100_000))),
        ]
        for (what, bytes) in cases {
            let archive = try await rebuiltBackup(of: library) { folder in try bytes.write(to: folder.appendingPathComponent(file)) }
            let into = temporaryLibrary()
            try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
            let restore = try await Cravey.run(["restore", archive.path, "--library", into.path])
            // Then nothing is restored, and the message names the words' file
            #expect(restore.status == 65 && restore.error.contains(file) && restore.error.contains("transcript"), "\(what): \(restore.status) \(restore.error)")
            let left = (try? RecordingLibrary(at: into, creating: false))
            #expect(try left?.count() ?? 0 == 0, "\(what)")
            #expect(left?.store.storedFiles().isEmpty ?? true, "\(what): \(left?.store.storedFiles() ?? [])")
        }

        // A word heard 0.4 s past the end (an older cravey stored it so) is restored cut to the end
        let archive = try await rebuiltBackup(of: library) { folder in try words("0.3", "0.9", "en").write(to: folder.appendingPathComponent(file)) }
        let into = temporaryLibrary()
        let restore = try await Cravey.run(["restore", archive.path, "--library", into.path])
        #expect(restore.status == 0, "\(restore.error)")
        let restored = try RecordingLibrary(at: into, creating: false)
        let back = try #require(try restored.recording(clip.id))
        let transcript = try #require(restored.transcripts.transcript(of: back))
        #expect(transcript.words.map(\.text) == ["Ahoy", "there."] && transcript.words.last?.end == clip.duration)
    }

    /// Ways a clip's media can be damaged after its first seconds, each leaving a file that opens
    /// and decodes a first frame: random bytes or zeros from a byte on, or the file cut short.
    static let damages: [(String, @Sendable (Data) -> Data)] = [
        ("random bytes after 20 KB", { $0.prefix(20_000) + Data((20_000..<$0.count).map { _ in UInt8.random(in: 0...255) }) }),
        ("random bytes after 70% of it", { data in
            let from = data.count * 7 / 10
            return data.prefix(from) + Data((from..<data.count).map { _ in UInt8.random(in: 0...255) })
        }),
        ("zeros after 2 KB", { $0.prefix(2_048) + Data(count: $0.count - 2_048) }),
        ("zeros after 40% of it", { $0.prefix($0.count * 4 / 10) + Data(count: $0.count - $0.count * 4 / 10) }),
        ("cut in half", { $0.prefix($0.count / 2) }),
        ("cut at 90%", { $0.prefix($0.count * 9 / 10) }),
    ]

    @Test("a backup whose clip's media decodes only at its start (random bytes or zeros from a byte on, cut short), with a manifest that agrees, restores nothing (65, naming the clip); its import is refused (65); doctor reports such media in a library as damaged (exit 1); whole media restores and is healthy")
    func damagedMediaRefused() async throws {
        // Given a library of a 30 s sound and an 8 s video, each imported
        let folder = temporaryLibrary()
        for (title, source) in [("Spoken words", try await Fixture.audio(seconds: 30)),
                                ("Seen things", try await Fixture.video(seconds: 8, size: "320x240"))] {
            let imported = try await Cravey.run(["import", source.path, "--title", title, "--library", folder.path])
            try #require(imported.status == 0, "\(imported.error)")
        }
        let library = try RecordingLibrary(at: folder)
        let healthy = try await Cravey.run(["doctor", "--library", folder.path])
        try #require(healthy.status == 0, "whole media is healthy: \(healthy.output)")
        let whole = try await rebuiltBackup(of: library) { _ in }
        let into = temporaryLibrary()
        let restored = try await Cravey.run(["restore", whole.path, "--library", into.path])
        try #require(restored.status == 0, "whole media restores: \(restored.error)")

        for clip in try library.recordings() {
            let media = try library.fileURL(of: clip)
            let original = try Data(contentsOf: media)
            for (what, damage) in Self.damages {
                // When a backup holds it damaged, its manifest made to agree, and it is restored
                let archive = try await rebuiltBackup(of: library) { backup in
                    try damage(original).write(to: backup.appendingPathComponent(clip.filePath))
                }
                let into = temporaryLibrary()
                let restore = try await Cravey.run(["restore", archive.path, "--library", into.path])

                // Then nothing is restored, and the message names the clip and the media
                #expect(restore.status == 65 && restore.error.contains(clip.title) && restore.error.contains("does not decode"),
                        "\(clip.title), \(what): \(restore.status) \(restore.error)")
                let left = try? RecordingLibrary(at: into, creating: false)
                #expect(try left?.count() ?? 0 == 0, "\(clip.title), \(what)")
                #expect(left?.store.storedFiles().isEmpty ?? true, "\(clip.title), \(what): \(left?.store.storedFiles() ?? [])")

                // And an import of such a file is refused (65), nothing stored
                let outside = temporaryFolder().appendingPathComponent("damaged-\(UUID().uuidString.prefix(8)).\(media.pathExtension)")
                try damage(original).write(to: outside)
                let imported = try await Cravey.run(["import", outside.path, "--library", folder.path])
                #expect(imported.status == 65 && imported.error.contains("Nothing was stored"), "\(clip.title), \(what): \(imported.status) \(imported.error)")
                #expect(try library.count() == 2, "\(clip.title), \(what): an import stored it")

                // And when the library's own file is damaged so, doctor says so (1), naming it
                try damage(original).write(to: media)
                let doctor = try await Cravey.run(["doctor", "--library", folder.path])
                #expect(doctor.status == 1 && doctor.output.contains("damaged media") && doctor.output.contains(clip.title),
                        "\(clip.title), \(what): \(doctor.status) \(doctor.output)")
                try original.write(to: media)
            }
        }
    }

    @Test("restore of a named pipe is refused at once (64), and two restores of one backup at the same time both end with each clip once")
    func restoreOddInputs() async throws {
        let library = try await Fixture.library(titles: ["One", "Two", "Three"])
        let archive = try await rebuiltBackup(of: library) { _ in }
        let pipe = temporaryFolder().appendingPathComponent("backup.pipe")
        try #require(mkfifo(pipe.path, 0o600) == 0)
        let target = temporaryLibrary()
        let fromPipe = try await runWithin(20, ["restore", pipe.path, "--library", target.path])
        #expect(fromPipe?.status == 64, "\(String(describing: fromPipe))")

        async let first = Cravey.run(["restore", archive.path, "--library", target.path])
        async let second = Cravey.run(["restore", archive.path, "--library", target.path])
        let (a, b) = try await (first, second)
        #expect(a.status == 0 && b.status == 0, "\(a.error) | \(b.error)")
        #expect(Set(try RecordingLibrary(at: target).recordings().map(\.title)) == ["One", "Two", "Three"])
        let doctor = try await Cravey.run(["doctor", "--library", target.path])
        #expect(doctor.status == 0, "\(doctor.output)")
    }

    @Test("a sound server or display named over TCP (PULSE_SERVER=tcp:..., DISPLAY=localhost:10.0 as ssh -X sets) is refused (69) naming the variable, before any network socket is opened (strace); the network.allow-servers setting lets it be tried")
    func noNetworkServers() async throws {
        // Given a clip
        let folder = temporaryLibrary()
        let imported = try await Cravey.run(["import", try await Fixture.audio(seconds: 1).path, "--library", folder.path])
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(imported.status == 0, "\(imported.error)")
        func traced(_ arguments: [String], _ environment: [String: String]) async throws -> (result: CommandResult, calls: String) {
            let log = temporaryFolder().appendingPathComponent("strace-\(UUID().uuidString).txt")
            let result = try await run("strace", ["-f", "-e", "trace=socket,connect", "-o", log.path, Cravey.executable] + arguments,
                                              environment: Cravey.environment(environment))
            return (result, try String(contentsOf: log, encoding: .utf8))
        }

        // When it plays, records and lists devices with a sound server or a display over TCP
        let play = ["play", id, "--no-count", "--library", folder.path]
        for (arguments, environment, variable) in [
            (play, ["PULSE_SERVER": "tcp:127.0.0.1:9"], "PULSE_SERVER"),
            (play, ["PULSE_SERVER": "{0123abcd}tcp6:[::1]:9 unix:/nowhere"], "PULSE_SERVER"),
            (play, ["PULSE_SERVER": "localhost"], "PULSE_SERVER"),
            (play, ["DISPLAY": "localhost:10.0"], "DISPLAY"),
            (["record", "--seconds", "1", "--library", folder.path], ["PULSE_SERVER": "tcp:127.0.0.1:9"], "PULSE_SERVER"),
            (["devices"], ["DISPLAY": "127.0.0.1:0"], "DISPLAY"),
        ] {
            let (result, calls) = try await traced(arguments, environment)

            // Then each is refused (69) naming the variable and its fix, with no network socket opened
            #expect(result.status == 69 && result.error.contains("\(variable)=") && result.error.contains("network.allow-servers"),
                    "\(arguments) \(environment): \(result.status) \(result.error)")
            #expect(!calls.contains("AF_INET"), "\(arguments) \(environment): \(calls)")
        }
        #expect(try RecordingLibrary(at: folder).count() == 1)

        // And with the setting, the server is tried (and, as nothing answers, no server is reachable)
        let settings = temporaryFolder()
        try FileManager.default.createDirectory(at: settings.appendingPathComponent("cravey"), withIntermediateDirectories: true)
        try Data("network.allow-servers = true\n".utf8).write(to: settings.appendingPathComponent("cravey/settings.toml"))
        let (allowed, calls) = try await traced(play, ["PULSE_SERVER": "tcp:127.0.0.1:9", "XDG_CONFIG_HOME": settings.path])
        #expect(allowed.status == 69 && allowed.error.contains("No sound server is reachable"), "\(allowed.error)")
        #expect(calls.contains("AF_INET"), "\(calls)")

        // And a local one, named as a socket's path, plays
        let local = try await Cravey.run(play, environment: ["PULSE_SERVER": TestSoundServer.address.replacingOccurrences(of: "unix:", with: "")])
        #expect(local.status == 0, "\(local.error)")
    }

    @Test("a server named by PulseAudio's client.conf (PULSE_CLIENTCONFIG, ~/.config/pulse), with localhost allowed there, or by the X display's PULSE_SERVER property is never used: play, record and devices reach the local server's socket only (strace, and a TCP listener nobody reaches), and with no local server they stop with 69 saying so")
    func noServerFromConfiguration() async throws {
        // Given a clip, a TCP port something listens on, and the local server reached only as
        // the client library finds it itself (no PULSE_SERVER: its runtime folder)
        let folder = temporaryLibrary()
        let imported = try await Cravey.run(["import", try await Fixture.audio(seconds: 1).path, "--library", folder.path])
        let id = imported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(imported.status == 0, "\(imported.error)")
        let listener = try TCPListener()
        let socket = TestSoundServer.address.replacingOccurrences(of: "unix:", with: "")
        try #require(socket.hasSuffix("/pulse/native"), "\(socket)")
        let runtime = String(socket.dropLast("/pulse/native".count))
        var local = Cravey.environment()
        local.removeValue(forKey: "PULSE_SERVER")
        local["XDG_RUNTIME_DIR"] = runtime
        func traced(_ arguments: [String], _ environment: [String: String]) async throws -> (result: CommandResult, calls: String) {
            let log = temporaryFolder().appendingPathComponent("strace-\(UUID().uuidString).txt")
            // Killed after 90 s: a client that reached the listener waits for an answer that never comes.
            let result = try await run("timeout", ["-s", "KILL", "90", "strace", "-f", "-s", "4096", "-e", "trace=connect", "-o", log.path, Cravey.executable] + arguments,
                                              environment: environment)
            return (result, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
        }

        // When the client configuration names that port over TCP, in a file PULSE_CLIENTCONFIG
        // names and in the person's own ~/.config/pulse/client.conf (with localhost allowed too),
        // and when the X display's root window names it
        let named = temporaryFolder().appendingPathComponent("client-\(UUID().uuidString.prefix(8)).conf")
        try Data("default-server = tcp:127.0.0.1:\(listener.port)\nautospawn = yes\n".utf8).write(to: named)
        var fromFile = local
        fromFile["PULSE_CLIENTCONFIG"] = named.path
        let home = temporaryFolder().appendingPathComponent("home-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: home.appendingPathComponent(".config/pulse"), withIntermediateDirectories: true)
        try Data("default-server = tcp4:localhost:\(listener.port)\nauto-connect-localhost = yes\n".utf8)
            .write(to: home.appendingPathComponent(".config/pulse/client.conf"))
        var fromHome = local
        fromHome["HOME"] = home.path
        fromHome.removeValue(forKey: "XDG_CONFIG_HOME")
        fromHome.removeValue(forKey: "XDG_RUNTIME_DIR")
        fromHome["PULSE_RUNTIME_PATH"] = runtime + "/pulse"
        // (A window manager keeps a client connected: an X server left with none resets, and
        // forgets its root window's properties.)
        let display = try await VirtualDisplay(windowManager: true)
        let property = try await run("xprop", ["-display", display.name, "-root", "-f", "PULSE_SERVER", "8s", "-set", "PULSE_SERVER",
                                                      "tcp:127.0.0.1:\(listener.port)"])
        let set = try await run("xprop", ["-display", display.name, "-root", "PULSE_SERVER"])
        try #require(property.status == 0 && set.output.contains("tcp:127.0.0.1:\(listener.port)"), "\(property.error) \(set.output)")
        // (The client library reads the display's properties only in an ssh session, as it
        // would be when the display is forwarded to this computer.)
        let fromDisplay = local.merging(display.environment) { $1 }.merging(["SSH_CONNECTION": "192.0.2.7 50022 192.0.2.1 22"]) { $1 }
        let before = try RecordingLibrary(at: folder).count()
        for (what, environment) in [("PULSE_CLIENTCONFIG", fromFile), ("~/.config/pulse/client.conf", fromHome), ("the X display", fromDisplay)] {
            for arguments in [["play", id, "--no-count", "--library", folder.path], ["record", "--seconds", "1", "--library", folder.path], ["devices"]] {
                let (result, calls) = try await traced(arguments, environment)

                // Then each works against the local server, and no TCP socket was connected
                #expect(result.status == 0, "\(what) \(arguments[0]): \(result.status) \(result.error)")
                #expect(!calls.contains("AF_INET"), "\(what) \(arguments[0]): \(calls)")
                #expect(calls.contains(socket), "\(what) \(arguments[0]): the local server's socket was not used: \(calls)")
                #expect(listener.connections() == 0, "\(what) \(arguments[0]): the listener was reached")
            }
        }
        #expect(try RecordingLibrary(at: folder).count() == before + 3)

        // And with no server on this computer, it stops with 69 saying so, reaching for no other
        guard !FileManager.default.fileExists(atPath: "/var/run/pulse/native") else { return }
        let empty = temporaryFolder().appendingPathComponent("runtime-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        var none = fromFile
        none["XDG_RUNTIME_DIR"] = empty.path
        for arguments in [["devices"], ["play", id, "--no-count", "--library", folder.path]] {
            let (result, calls) = try await traced(arguments, none)
            #expect(result.status == 69 && result.error.contains("No sound server is running on this computer")
                    && result.error.contains(empty.path + "/pulse/native") && result.error.contains("client.conf"), "\(arguments[0]): \(result.status) \(result.error)")
            #expect(!calls.contains("AF_INET"), "\(arguments[0]): \(calls)")
            #expect(listener.connections() == 0, "\(arguments[0]): the listener was reached")
        }
    }

    @Test("a refusal quotes at most a line of what it was given: a backup's 5 MB title is refused (65) in a few hundred bytes, nothing changed (a title, a purpose, an id: UsageErrorTests; a setting: SettingsCommandTests)")
    func refusalsQuoteALine() async throws {
        // Given a clip
        let library = try await Fixture.library(titles: ["Short"])
        let clip = try #require(try library.recordings().first)

        // And a backup whose clip's title is 5 MB, with an escape at its end
        let record = ClipFiles(clip).file(.copy)!.path
        let archive = try await rebuiltBackup(of: library) { folder in
            let file = folder.appendingPathComponent(record)
            let text = try String(contentsOf: file, encoding: .utf8)
            try #require(text.contains("\"title\" : \"Short\""), "\(text)")
            try text.replacingOccurrences(of: "\"title\" : \"Short\"", with: "\"title\" : \"" + String(repeating: "T", count: 5 << 20) + "\\u001b\"")
                .write(to: file, atomically: true, encoding: .utf8)
        }
        let into = temporaryLibrary()
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let refused = try await Cravey.run(["restore", archive.path, "--library", into.path])

        // Then it is refused, in a message of a few hundred bytes, and nothing changed
        #expect(refused.status == 65, "\(refused.status) \(refused.error.prefix(300))")
        #expect(refused.error.utf8.count < 600, "\(refused.error.utf8.count) bytes: \(refused.error.prefix(300))")
        #expect(try library.recordings().map(\.title) == ["Short"])
        #expect(try library.recordings().first?.purpose == clip.purpose)
        #expect(try RecordingLibrary(at: into).count() == 0)
    }
}

/// A TCP socket listening on 127.0.0.1 at a port of the system's choosing, that accepts
/// nothing by itself: ``connections()`` counts the clients that reached it since it last looked.
final class TCPListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw TestFailure("bind or listen: \(errno)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    /// How many clients connected since the last call (each accepted and closed).
    func connections() -> Int {
        var count = 0
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return count }
            close(client)
            count += 1
        }
    }
}
