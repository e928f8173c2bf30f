import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// What cravey reads is checked where it enters: a row, a clip's copy or a backup holding values
/// no clip has is reported and never takes the rest of the library down. Run in process
/// (``Outcome``), the rows edited and the backups rebuilt by hand (``editByHand(_:_:)``,
/// ``rebuiltBackup(of:_:)``). (A named pipe never waited on, a backup killed, two restores at
/// once, no server over the network: the CLI's TrustNothingTests.)
@Suite("Trust nothing it reads, in process", .temporaryFiles)
struct TrustNothingTests {
    @Test("rows with values no clip has (a date past year 9999, an infinite length, a loudness of +200 LUFS, a negative play count, a play count of 2^63-1 over one play) are listed, played and reported; repair sets what it can tell")
    func impossibleRows() async throws {
        // Given a library whose rows were edited by hand
        let library = try await Fixture.library(titles: ["Future", "Endless", "Loud", "Negative", "Leader"])
        let byTitle = Dictionary(uniqueKeysWithValues: try library.recordings().map { ($0.title, $0.id.description) })
        try library.countPlay(of: try #require(try library.recording(RecordingID(byTitle["Leader"]!)!)))
        let database = library.url.appendingPathComponent("library.sqlite")
        try editByHand(database, """
            UPDATE recording SET createdAt = '275760-09-13 00:00:00.000' WHERE id = '\(byTitle["Future"]!)';
            UPDATE recording SET duration = 9e999 WHERE id = '\(byTitle["Endless"]!)';
            UPDATE recording SET loudnessIntegrated = 200, loudnessTruePeak = 180 WHERE id = '\(byTitle["Loud"]!)';
            UPDATE recording SET playCount = -5 WHERE id = '\(byTitle["Negative"]!)';
            UPDATE recording SET playCount = 9223372036854775807 WHERE id = '\(byTitle["Leader"]!)';
            """)
        let path = library.url.path

        // When the library is listed, a clip shown and played, and the doctor looks and repairs
        let list = try await Outcome.of(["list", "--json", "--library", path])
        let info = try await Outcome.of(["info", byTitle["Endless"]!, "--library", path])
        let quickplay = try await Outcome.of(["quickplay", "--library", path])
        let doctor = try await Outcome.of(["doctor", "--library", path])
        let repair = try await Outcome.of(["doctor", "--repair", "--library", path])
        let after = try await Outcome.of(["doctor", "--library", path])

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
        let database = library.url.appendingPathComponent("library.sqlite")
        let good = try #require(try library.recordings().first)
        try editByHand(database, """
            INSERT INTO recording (id, type, title, createdAt, duration, filePath, fileSize, playCount)
            VALUES ('not-a-uuid', 'audio', 'Hand made', '2026-01-01 00:00:00.000', 1, 'Recordings/x.m4a', 1, 0);
            """)

        // When it is listed, a clip played, and the doctor looks
        let list = try await Outcome.of(["list", "--library", library.url.path])
        let info = try await Outcome.of(["info", good.id.uuid.uuidString, "--library", library.url.path])
        let doctor = try await Outcome.of(["doctor", "--library", library.url.path])

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
        let repair = try await Outcome.of(["doctor", "--repair", "--library", library.url.path])
        let again = try await Outcome.of(["doctor", "--repair", "--library", library.url.path])

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
            let restore = try await Outcome.of(["restore", archive.path, "--library", into.path])

            // Then nothing is restored, and the message names the clip and what is wrong
            #expect(restore.status == 65 && restore.error.contains("Chan") && restore.error.contains(field), "\(what): \(restore.status) \(restore.error)")
            let left = (try? RecordingLibrary(at: into, creating: false))
            #expect(try left?.count() ?? 0 == 0, "\(what)")
            #expect(left?.store.storedFiles().isEmpty ?? true, "\(what): \(left?.store.storedFiles() ?? [])")
        }
    }

    @Test("a backup whose reminders.json holds no reminders (a time 25:00, a day no day, no JSON), with a manifest that agrees, restores nothing (65, naming it)")
    func lyingRemindersRefused() async throws {
        // Given a clip with a reminder, and backups of it with the reminder changed
        let library = try await Fixture.library(titles: ["Evening"])
        _ = try await offPool { try library.reminders.add(Reminder(time: TimeOfDay(parsing: "18:30"), days: .weekdays)) }
        let cases: [(String, (String) -> String)] = [
            ("a time of 25:00", { $0.replacingOccurrences(of: "\"18:30\"", with: "\"25:00\"") }),
            ("a day no day is", { $0.replacingOccurrences(of: "\"mon\"", with: "\"someday\"") }),
            ("no JSON", { $0 + "}" }),
        ]
        for (what, change) in cases {
            let archive = try await rebuiltBackup(of: library) { folder in
                let file = folder.appendingPathComponent("reminders.json")
                try Data(change(String(decoding: try Data(contentsOf: file), as: UTF8.self)).utf8).write(to: file)
            }

            // When it is restored into a new library
            let into = temporaryLibrary()
            let restore = try await Outcome.of(["restore", archive.path, "--library", into.path])

            // Then nothing is restored, and the message names the reminders
            #expect(restore.status == 65 && restore.error.contains("reminders.json holds something that is no reminder"), "\(what): \(restore)")
            #expect(!FileManager.default.fileExists(atPath: into.path), "\(what)")
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
            let restore = try await Outcome.of(["restore", archive.path, "--library", into.path])
            // Then nothing is restored, and the message names the words' file
            #expect(restore.status == 65 && restore.error.contains(file) && restore.error.contains("transcript"), "\(what): \(restore.status) \(restore.error)")
            let left = (try? RecordingLibrary(at: into, creating: false))
            #expect(try left?.count() ?? 0 == 0, "\(what)")
            #expect(left?.store.storedFiles().isEmpty ?? true, "\(what): \(left?.store.storedFiles() ?? [])")
        }

        // A word heard 0.4 s past the end (an older cravey stored it so) is restored cut to the end
        let archive = try await rebuiltBackup(of: library) { folder in try words("0.3", "0.9", "en").write(to: folder.appendingPathComponent(file)) }
        let into = temporaryLibrary()
        let restore = try await Outcome.of(["restore", archive.path, "--library", into.path])
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
            let imported = try await Outcome.of(["import", source.path, "--title", title, "--library", folder.path])
            try #require(imported.status == 0, "\(imported.error)")
        }
        let library = try RecordingLibrary(at: folder)
        let healthy = try await Outcome.of(["doctor", "--library", folder.path])
        try #require(healthy.status == 0, "whole media is healthy: \(healthy.output)")
        let whole = try await rebuiltBackup(of: library) { _ in }
        let into = temporaryLibrary()
        let restored = try await Outcome.of(["restore", whole.path, "--library", into.path])
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
                let restore = try await Outcome.of(["restore", archive.path, "--library", into.path])

                // Then nothing is restored, and the message names the clip and the media
                #expect(restore.status == 65 && restore.error.contains(clip.title) && restore.error.contains("does not decode"),
                        "\(clip.title), \(what): \(restore.status) \(restore.error)")
                let left = try? RecordingLibrary(at: into, creating: false)
                #expect(try left?.count() ?? 0 == 0, "\(clip.title), \(what)")
                #expect(left?.store.storedFiles().isEmpty ?? true, "\(clip.title), \(what): \(left?.store.storedFiles() ?? [])")

                // And an import of such a file is refused (65), nothing stored
                let outside = temporaryFolder().appendingPathComponent("damaged-\(UUID().uuidString.prefix(8)).\(media.pathExtension)")
                try damage(original).write(to: outside)
                let imported = try await Outcome.of(["import", outside.path, "--library", folder.path])
                #expect(imported.status == 65 && imported.error.contains("Nothing was stored"), "\(clip.title), \(what): \(imported.status) \(imported.error)")
                #expect(try library.count() == 2, "\(clip.title), \(what): an import stored it")

                // And when the library's own file is damaged so, doctor says so (1), naming it
                try damage(original).write(to: media)
                let doctor = try await Outcome.of(["doctor", "--library", folder.path])
                #expect(doctor.status == 1 && doctor.output.contains("damaged media") && doctor.output.contains(clip.title),
                        "\(clip.title), \(what): \(doctor.status) \(doctor.output)")
                try original.write(to: media)
            }
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
        let refused = try await Outcome.of(["restore", archive.path, "--library", into.path])

        // Then it is refused, in a message of a few hundred bytes, and nothing changed
        #expect(refused.status == 65, "\(refused.status) \(refused.error.prefix(300))")
        #expect(refused.error.utf8.count < 600, "\(refused.error.utf8.count) bytes: \(refused.error.prefix(300))")
        #expect(try library.recordings().map(\.title) == ["Short"])
        #expect(try library.recordings().first?.purpose == clip.purpose)
        #expect(try RecordingLibrary(at: into).count() == 0)
    }
}
