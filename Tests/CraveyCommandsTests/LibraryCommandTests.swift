import CraveyCore
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands

/// The commands `cravey` runs on the library itself (edit, info, quickplay's list, pin, tag,
/// markers, export, storage, delete), and doctor and import, run in process on real SQLite
/// libraries (``Outcome``): what they print on stdout and stderr, their exit code and what they
/// change, as the built executables show them (they each started one, 60-odd times a run).
@Suite("The library commands, in process", .temporaryFiles)
struct LibraryCommandTests {
    @Test("info, edit and quickplay work on an id prefix")
    func infoEditQuickPlay() async throws {
        let library = try await Fixture.library(titles: ["Breathe"])
        let recording = try #require(try library.recordings().first)
        let path = library.url.path
        let id = String(recording.id.uuid.uuidString.prefix(8))

        let edited = try await Outcome.of(["edit", id, "--title", "Ten minutes", "--purpose", "craving", "--json", "--library", path])
        #expect(edited.status == 0, "\(edited)")
        let info = try await Outcome.of(["info", id, "--json", "--library", path])
        let shown = try Recording.jsonDecoder().decode(Recording.self, from: Data(info.output.utf8))
        #expect(shown.title == "Ten minutes" && shown.purpose == .craving)

        let quick = try await Outcome.of(["quickplay", "--json", "--library", path])
        #expect(try Recording.jsonDecoder().decode([Recording].self, from: Data(quick.output.utf8)).map(\.id) == [recording.id])
    }

    @Test("delete --yes deletes the clip, its files with it; an id no clip has then exits 66 pointing at cravey list")
    func deleteWithYes() async throws {
        let library = try await Fixture.library(titles: ["Don't Do It"])
        let recording = try #require(try library.recordings().first)
        let path = library.url.path, id = String(recording.id.description.prefix(6))

        let deleted = try await Outcome.of(["delete", id, "--yes", "--library", path])
        #expect(deleted.status == 0 && deleted.error.contains("Deleted \"Don't Do It\"."), "\(deleted)")
        #expect(try library.count() == 0)
        #expect(try library.storage.report().totalBytes == 0)

        let unknown = try await Outcome.of(["delete", id, "--yes", "--library", path])
        #expect(unknown.status == 66 && unknown.error.contains("cravey list"), "\(unknown)")
    }

    @Test("delete leaves none of the clip's words in any file of the library: not the database, not its write-ahead log")
    func deletedIsGone() async throws {
        // Given a clip with words only it has, played, beside another clip, and a reader of the
        // library (a connection of its own, as another process's)
        let library = try await Fixture.library(titles: ["Keep me", "Zebra whisper 8812"])
        let doomed = try #require(try library.recordings().first { $0.title.hasPrefix("Zebra") })
        try library.edit(doomed.id) { $0.notes = "Quartz lantern notes 4471" }
        try library.countPlay(of: doomed)
        _ = try await Outcome.of(["list", "--library", library.url.path])

        // When it is deleted
        let deleted = try await Outcome.of(["delete", doomed.id.uuid.uuidString, "--yes", "--library", library.url.path])

        // Then no file of the library holds its title, its notes or its id
        #expect(deleted.status == 0, "\(deleted)")
        let walker = FileManager.default.enumerator(at: library.url, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walker?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let bytes = try Data(contentsOf: url)
            for secret in ["Zebra whisper 8812", "Quartz lantern notes 4471", doomed.id.description] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(url.lastPathComponent) still holds \(secret)")
            }
        }
        #expect(try library.recordings().map(\.title) == ["Keep me"])
    }

    @Test("pin and unpin: quickplay lists the pinned clip in its slot; a taken slot is said; every slot pinned and none named exits 64; an unknown id 66")
    func pinAndUnpin() async throws {
        // Given clips "Played", "Quiet", "Third" and "Fourth", the first played once
        let library = try await Fixture.library(titles: ["Played", "Quiet", "Third", "Fourth"])
        let byTitle = Dictionary(uniqueKeysWithValues: try library.recordings().map { ($0.title, $0) })
        try library.countPlay(of: #require(byTitle["Played"]))
        let path = library.url.path
        func id(_ title: String) -> String { String(byTitle[title]!.id.description.prefix(8)) }

        // When "Quiet" is pinned to slot 1
        let pinned = try await Outcome.of(["pin", id("Quiet"), "1", "--library", path])
        #expect(pinned.status == 0 && pinned.error.contains("Pinned \"Quiet\" to Quick Play slot 1"), "\(pinned)")

        // Then quickplay lists it first, pinned, and its JSON says its slot
        let listed = try await Outcome.of(["quickplay", "--json", "--library", path])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["title"] as? String } == ["Quiet", "Played", "Fourth"])
        #expect(objects.first?["pinnedSlot"] as? Int == 1 && objects.last?["pinnedSlot"] is NSNull)
        #expect(try await Outcome.of(["quickplay", "--library", path]).output.contains("slot 1"))

        // When "Third" takes slot 1, and then every slot is pinned and one more asks for any
        let taken = try await Outcome.of(["pin", id("Third"), "1", "--library", path])
        #expect(taken.status == 0 && taken.error.contains("\"Quiet\"") && taken.error.contains("no longer pinned"), "\(taken)")
        for (title, slot) in [("Quiet", "2"), ("Played", "3")] {
            #expect(try await Outcome.of(["pin", id(title), slot, "--library", path]).status == 0)
        }
        let before = try library.recordings()
        let full = try await Outcome.of(["pin", id("Fourth"), "--library", path])
        #expect(full.status == 64 && full.error.contains("cravey unpin"), "\(full)")
        #expect(try library.recordings() == before)

        // Then unpin lets a slot go, says when there was nothing to do, and an unknown id is 66
        let unpinned = try await Outcome.of(["unpin", id("Third"), "--library", path])
        #expect(unpinned.status == 0 && unpinned.error.contains("Unpinned \"Third\" from Quick Play slot 1"), "\(unpinned)")
        #expect(try await Outcome.of(["unpin", id("Third"), "--library", path]).error.contains("was not pinned"))
        #expect(try await Outcome.of(["pin", "0000dead", "--library", path]).status == 66)
        #expect(try library.quickPlay().map(\.pinnedSlot) == [nil, 2, 3])
    }

    @Test("tag: +word adds, -word removes, a bare word adds, no change prints the tags; list, quickplay and export take --tag")
    func tagCommand() async throws {
        // Given two clips
        let library = try await Fixture.library(titles: ["Sister", "Walk"])
        let byTitle = Dictionary(uniqueKeysWithValues: try library.recordings().map { ($0.title, $0) })
        let path = library.url.path
        func id(_ title: String) -> String { String(byTitle[title]!.id.description.prefix(8)) }

        // When one is tagged +Calm family, then -family, and the other calm
        let added = try await Outcome.of(["tag", id("Sister"), "+Calm", "family", "--library", path])
        #expect(added.status == 0 && added.error.contains("#calm #family"), "\(added)")
        #expect(try await Outcome.of(["tag", id("Sister"), "-family", "--library", path]).status == 0)
        #expect(try await Outcome.of(["tag", id("Walk"), "+calm", "+outside", "--library", path]).status == 0)

        // Then the tags print, list and export narrow to one, and --json has them
        #expect(try await Outcome.of(["tag", id("Sister"), "--library", path]).output == "#calm\n")
        let listed = try await Outcome.of(["list", "--tag", "outside", "--json", "--library", path])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["title"] as? String } == ["Walk"] && objects.first?["tags"] as? [String] == ["calm", "outside"])
        // (`--tag=calm`: `quickplay --tag calm` reads as quickplay with an operand, handed to
        // cravey-media, which lists as cravey does; here only cravey's own commands run.)
        #expect(try await Outcome.of(["quickplay", "--tag=calm", "--library", path]).output.contains("Sister"))
        let csv = try await Outcome.of(["export", "--format", "csv", "--tag", "#outside", "--library", path])
        #expect(csv.output.split(separator: "\r\n").count == 2)
        let none = try await Outcome.of(["list", "--tag", "nothing", "--library", path])
        #expect(none.status == 0 && none.error.contains("No recording is tagged \"nothing\""), "\(none)")
    }

    @Test("markers: --add with --label and --remove change them, the list and --json print them")
    func markersCommand() async throws {
        // Given a clip of 0.5 s
        let library = try await Fixture.library(titles: ["Talk"])
        let recording = try #require(try library.recordings().first)
        let path = library.url.path, id = String(recording.id.description.prefix(8))
        let none = try await Outcome.of(["markers", id, "--library", path])
        #expect(none.status == 0 && none.output.isEmpty && none.error.contains("has no markers"), "\(none)")

        // When two markers are added, one labelled, and a third removed again
        let added = try await Outcome.of(["markers", id, "--add", "0.25", "--label", "the point", "--library", path])
        #expect(added.status == 0 && added.error.contains("1 marker now"), "\(added)")
        #expect(try await Outcome.of(["markers", id, "--add", "0:00.1", "--library", path]).status == 0)
        #expect(try await Outcome.of(["markers", id, "--add", "0.4", "--label", "-2 dB", "--library", path]).status == 0)
        #expect(try await Outcome.of(["markers", id, "--remove", "3", "--library", path]).status == 0)

        // Then they are listed in time order, and --json has them, as list --json and info do
        #expect(try await Outcome.of(["markers", id, "--library", path]).output == "1\t0:00.100\n2\t0:00.250\tthe point\n")
        let json = try await Outcome.of(["markers", id, "--json", "--library", path])
        let markers = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(markers.map { $0["at"] as? Double } == [0.1, 0.25] && markers[0]["label"] is NSNull && markers[1]["label"] as? String == "the point")
        let listed = try await Outcome.of(["list", "--json", "--library", path])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect((objects.first?["markers"] as? [[String: Any]])?.count == 2)
        let info = try await Outcome.of(["info", id, "--json", "--library", path])
        #expect(info.output.contains("\"label\" : \"the point\""), "\(info.output)")
        #expect(try await Outcome.of(["info", id, "--library", path]).output.contains("Markers:     2 (`cravey markers \(id)` lists them)"))
    }

    @Test("notes may hold a line break; list, quickplay, info and delete show a stored control character escaped; JSON keeps it exact")
    func controlCharacters() async throws {
        let library = try await Fixture.library(titles: ["Breathe", "Other"])
        let recording = try #require(try library.recordings().first { $0.title == "Breathe" })
        let path = library.url.path
        let id = String(recording.id.description.prefix(8))

        // Given: notes typed with a line break are taken (typed control characters are refused:
        // UsageErrorTests)
        let multiline = try await Outcome.of(["edit", id, "--notes", "one\ntwo", "--library", path])
        #expect(multiline.status == 0, "\(multiline)")

        // When: an older or hand-edited row holds control characters anyway
        for row in try library.recordings() {
            _ = try library.storeWords(of: row.id, title: "\u{1B}]0;pwned\u{07}x\u{9B}", notes: "one\ntwo\u{1B}[2J\u{7F}", purpose: nil)
        }
        let list = try await Outcome.of(["list", "--library", path])
        let quick = try await Outcome.of(["quickplay", "--library", path])
        let info = try await Outcome.of(["info", id, "--library", path])
        let json = try await Outcome.of(["info", id, "--json", "--library", path])
        let deleted = try await Outcome.of(["delete", id, "--yes", "--library", path])

        // Then: no control character reaches the terminal; each shows as its code point (doctor's
        // report: the CLI's LibraryCommandTests).
        let shown = "<U+001B>]0;pwned<U+0007>x<U+009B>"
        for outcome in [list, quick, info, deleted] {
            let printed = outcome.output + outcome.error
            #expect(!printed.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(printed.debugDescription)")
            #expect(printed.contains(shown), "\(printed)")
            #expect(outcome.status == 0, "\(outcome)")
        }
        #expect(info.output.contains("one⏎two<U+001B>[2J<U+007F>"), "\(info.output)")
        // JSON escapes them itself and keeps the stored text exact.
        #expect(try Recording.jsonDecoder().decode(Recording.self, from: Data(json.output.utf8)).title == "\u{1B}]0;pwned\u{07}x\u{9B}")
    }

    @Test("export writes a formula-looking title with a leading apostrophe; --raw keeps it verbatim")
    func exportFormula() async throws {
        let library = try await Fixture.library(titles: ["=HYPERLINK(\"http://x\",\"click\")"])
        let path = library.url.path
        let safe = try await Outcome.of(["export", "--format", "csv", "--library", path])
        #expect(safe.status == 0, "\(safe)")
        #expect(safe.output.contains("\"'=HYPERLINK(\"\"http://x\"\",\"\"click\"\")\""), "\(safe.output)")
        let raw = try await Outcome.of(["export", "--format", "csv", "--raw", "--library", path])
        #expect(raw.status == 0, "\(raw)")
        #expect(raw.output.contains(",\"=HYPERLINK(\"\"http://x\"\",\"\"click\"\")\","), "\(raw.output)")
    }

    @Test("export --output writes a private file; storage counts bytes, types and purposes")
    func exportAndStorage() async throws {
        let library = try await Fixture.library(clips: 3)
        let path = library.url.path
        let output = temporaryFolder().appendingPathComponent("export.csv")
        let exported = try await Outcome.of(["export", "--format", "csv", "--output", output.path, "--library", path])
        #expect(exported.status == 0, "\(exported)")
        #expect(try FileManager.default.attributesOfItem(atPath: output.path)[.posixPermissions] as? Int == 0o600)
        #expect(try String(contentsOf: output, encoding: .utf8).components(separatedBy: "\r\n").count == 5)

        let storage = try await Outcome.of(["storage", "--json", "--library", path])
        let report = try JSONDecoder().decode(LibraryStorage.Report.self, from: Data(storage.output.utf8))
        #expect(report.recordings == 3 && report.byType["audio"] == 3 && report.byPurpose["none"] == 3)
        #expect(report.totalBytes == (try library.storage.report().totalBytes) && report.totalBytes > 0)

        let noDirectory = try await Outcome.of(["export", "--format", "json", "--output", "/nonexistent/dir/x.json", "--library", path])
        #expect(noDirectory.status == 73, "\(noDirectory)")
    }

    @Test("export --format json's shape ({exportDate, recordings, version}) is what the help and docs/reference.md describe")
    func exportShapeIsDescribed() async throws {
        // Given the JSON export of a library
        let library = try await Fixture.library(clips: 1)
        let exported = try await Outcome.of(["export", "--library", library.url.path, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(exported.output.utf8)) as? [String: Any], "\(exported)")

        // Then every key it has is named by `export --help` and by the reference's JSON section
        let help = try await Outcome.of(["export", "--help"]).output
        let reference = try String(contentsOf: TestSoundServer.packageRoot.appendingPathComponent("docs/reference.md"), encoding: .utf8)
        let section = reference.components(separatedBy: "\n## JSON\n").dropFirst().first?.components(separatedBy: "\n## ").first ?? ""
        #expect(Set(document.keys) == ["exportDate", "recordings", "version"])
        for key in document.keys {
            #expect(help.contains(key), "export --help does not name \(key)")
            #expect(section.contains("`\(key)`"), "docs/reference.md's JSON section does not name \(key)")
        }
    }

    @Test("--title \"-2+3\" is a title for import and edit, not a file name or an option")
    func dashedTitle() async throws {
        // Given a library
        let library = try await Fixture.library(titles: ["Breathe"])
        let path = library.url.path, id = try #require(try library.recordings().first).id.description

        // When an import is given a title starting with a dash, and a clip is edited so
        let parsed = try CraveyCommands.Cravey.parseAsRoot(["import", "--library", path, "talk.m4a", "--title", "-2+3"])
        let edited = try await Outcome.of(["edit", id, "--library", path, "--title", "-4", "--notes", "-minus", "--json"])

        // Then both are taken as the titles and notes they are
        let imported = try #require(parsed as? ImportOptions)
        #expect(imported.file == "talk.m4a" && imported.metadata.title == "-2+3")
        #expect(edited.status == 0, "\(edited)")
        #expect(edited.output.contains("\"title\" : \"-4\"") && edited.output.contains("\"notes\" : \"-minus\""), "\(edited.output)")
    }

    @Test("spaces trimmed from the ends of a title or notes are reported, and the help says so")
    func trimmingIsSaid() async throws {
        // Given a clip
        let library = try await Fixture.library(titles: ["Breathe"])
        let id = try #require(try library.recordings().first).id.description

        // When it is given a title with spaces around it
        let edited = try await Outcome.of(["edit", id, "--library", library.url.path, "--title", "  Breathe  ", "--json"])

        // Then the stored title is trimmed, and stderr says so
        #expect(edited.status == 0 && edited.output.contains("\"title\" : \"Breathe\""), "\(edited.output)")
        #expect(edited.error.contains("spaces at the ends of the title were removed"), "\(edited.error)")
        let help = try await Outcome.of(["help", "edit"]).output
        #expect(help.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("spaces at its ends are removed"), "\(help)")
    }

    @Test("a damaged database exits 1 naming the file and the way out, and changes nothing")
    func damagedDatabase() async throws {
        let library = temporaryLibrary()
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let garbage = Data((0..<8192).map { _ in UInt8.random(in: 0...255) })
        let file = library.appendingPathComponent("library.sqlite")
        try garbage.write(to: file)
        let result = try await Outcome.of(["list", "--library", library.path])
        #expect(result.status == 1, "\(result)")
        #expect(result.error.contains(file.path) && result.error.contains("damaged") && result.error.contains("doctor --repair"), "\(result)")
        #expect(try Data(contentsOf: file) == garbage, "the damaged file is left as it was")
    }

    @Test("doctor shows a stored control character escaped (list, quickplay, info and delete: controlCharacters)")
    func doctorControlCharacters() async throws {
        // Given a clip whose row holds control characters (an older or hand-edited row), and a
        // clip whose media is gone, for doctor to name
        let library = try await Fixture.library(titles: ["Breathe", "Other"])
        let other = try #require(try library.recordings().first { $0.title == "Other" })
        _ = try library.storeWords(of: other.id, title: "\u{1B}]0;pwned\u{07}x\u{9B}", notes: "one\ntwo\u{1B}[2J\u{7F}", purpose: nil)
        try FileManager.default.removeItem(at: library.url.appendingPathComponent(other.filePath))

        // When doctor reports it
        let doctor = try await Outcome.of(["doctor", "--library", library.url.path])

        // Then no control character reaches the terminal; each shows as its code point
        let printed = doctor.output + doctor.error
        #expect(!printed.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(printed.debugDescription)")
        #expect(printed.contains("<U+001B>]0;pwned<U+0007>x<U+009B>"), "\(printed)")
    }

    @Test("import stores a WAV as AAC and prints its id; random bytes exit 65 and store nothing")
    func importCommand() async throws {
        let library = try await Fixture.library(clips: 0)
        let path = library.url.path
        let wav = try await Fixture.make("wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1"])
        let imported = try await Outcome.of(["--library", path, "import", wav.path, "--title", "Breathe", "--purpose", "reflection"])
        #expect(imported.status == 0, "\(imported.error)")
        let id = try #require(RecordingID(imported.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let row = try #require(try library.recording(id))
        #expect(row.title == "Breathe" && row.purpose == .reflection && row.type == .audio)

        let garbage = temporaryFolder().appendingPathComponent("garbage.mp3")
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255) }).write(to: garbage)
        let refused = try await Outcome.of(["import", garbage.path, "--library", path])
        #expect(refused.status == 65)
        #expect(refused.error.contains(garbage.path) && refused.error.contains("Nothing was stored"))
        #expect(try library.count() == 1)
    }
}
