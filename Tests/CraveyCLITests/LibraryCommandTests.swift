import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// The library commands, run as the built binaries against real SQLite files and real media.
@Suite("cravey library commands", .temporaryFiles)
struct LibraryCommandTests {
    @Test("8 processes x 60 plays of one clip at once end at exactly 480 plays and 480 events")
    func concurrentPlays() async throws {
        // (60 each, not 250: a play rewrites the clip's copy, which lists every play, so the
        // cost grows with the plays; 8 x 250 took 63 s of CPU in the debug build, a sixth of the
        // phase in parallel, for the same race between 8 writers.)
        let library = try await Fixture.library(clips: 1)
        let recording = try #require(try library.recordings().first)
        let helper = URL(fileURLWithPath: Cravey.executable).deletingLastPathComponent()
            .appendingPathComponent("cravey-test-helper").path
        let results = try await withThrowingTaskGroup(of: CommandResult.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await run(helper, ["plays", library.url.path, recording.id.uuid.uuidString, "60"])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results { #expect(result.status == 0, "\(result.error)") }
        #expect(try library.recording(recording.id)?.playCount == 480)
        #expect(try library.plays(of: recording.id).count == 480)
    }

    @Test("delete asks, refuses without a terminal or --yes (exit 64), and deletes with --yes")
    func deleteConfirmation() async throws {
        let library = try await Fixture.library(titles: ["Don't Do It"])
        let recording = try #require(try library.recordings().first)
        let path = library.url.path
        let id = String(recording.id.description.prefix(6))

        let refused = try await Cravey.run(["delete", id, "--library", path])
        #expect(refused.status == 64)
        #expect(refused.error.contains("--yes"))
        #expect(try library.count() == 1)

        let deleted = try await Cravey.run(["delete", id, "--yes", "--library", path])
        #expect(deleted.status == 0, "\(deleted.error)")
        #expect(try library.count() == 0)
        #expect(try library.storage.report().totalBytes == 0)

        let unknown = try await Cravey.run(["delete", id, "--yes", "--library", path])
        #expect(unknown.status == 66)
        #expect(unknown.error.contains("cravey list"))
    }

    @Test("info, edit and quickplay work on an id prefix")
    func infoEditQuickPlay() async throws {
        let library = try await Fixture.library(titles: ["Breathe"])
        let recording = try #require(try library.recordings().first)
        let path = library.url.path
        let id = String(recording.id.uuid.uuidString.prefix(8))

        let edited = try await Cravey.run(["edit", id, "--title", "Ten minutes", "--purpose", "craving", "--json", "--library", path])
        #expect(edited.status == 0, "\(edited.error)")
        let info = try await Cravey.run(["info", id, "--json", "--library", path])
        let shown = try Recording.jsonDecoder().decode(Recording.self, from: Data(info.output.utf8))
        #expect(shown.title == "Ten minutes" && shown.purpose == .craving)

        let quick = try await Cravey.run(["quickplay", "--json", "--library", path])
        #expect(try Recording.jsonDecoder().decode([Recording].self, from: Data(quick.output.utf8)).map(\.id) == [recording.id])
    }

    @Test("pin and unpin: quickplay lists the pinned clip in its slot; a taken slot is said; every slot pinned and none named exits 64; an unknown id 66")
    func pinAndUnpin() async throws {
        // Given clips "Played", "Quiet" and "Third", the first played once
        let library = try await Fixture.library(titles: ["Played", "Quiet", "Third", "Fourth"])
        let byTitle = Dictionary(uniqueKeysWithValues: try library.recordings().map { ($0.title, $0) })
        try library.countPlay(of: #require(byTitle["Played"]))
        let path = library.url.path
        func id(_ title: String) -> String { String(byTitle[title]!.id.description.prefix(8)) }

        // When "Quiet" is pinned to slot 1
        let pinned = try await Cravey.run(["pin", id("Quiet"), "1", "--library", path])
        #expect(pinned.status == 0, "\(pinned.error)")
        #expect(pinned.error.contains("Pinned \"Quiet\" to Quick Play slot 1"))

        // Then quickplay lists it first, pinned, and its JSON says its slot
        let listed = try await Cravey.run(["quickplay", "--json", "--library", path])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["title"] as? String } == ["Quiet", "Played", "Fourth"])
        #expect(objects.first?["pinnedSlot"] as? Int == 1 && objects.last?["pinnedSlot"] is NSNull)
        #expect(try await Cravey.run(["quickplay", "--library", path]).output.contains("slot 1"))

        // When "Third" takes slot 1, and then every slot is pinned and one more asks for any
        let taken = try await Cravey.run(["pin", id("Third"), "1", "--library", path])
        #expect(taken.status == 0 && taken.error.contains("\"Quiet\"") && taken.error.contains("no longer pinned"))
        for (title, slot) in [("Quiet", "2"), ("Played", "3")] {
            #expect(try await Cravey.run(["pin", id(title), slot, "--library", path]).status == 0)
        }
        let before = try library.recordings()
        let full = try await Cravey.run(["pin", id("Fourth"), "--library", path])
        #expect(full.status == 64 && full.error.contains("cravey unpin"))
        #expect(try library.recordings() == before)

        // Then unpin lets a slot go, says when there was nothing to do, and an unknown id is 66
        let unpinned = try await Cravey.run(["unpin", id("Third"), "--library", path])
        #expect(unpinned.status == 0 && unpinned.error.contains("Unpinned \"Third\" from Quick Play slot 1"))
        #expect(try await Cravey.run(["unpin", id("Third"), "--library", path]).error.contains("was not pinned"))
        #expect(try await Cravey.run(["pin", "0000dead", "--library", path]).status == 66)
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
        let added = try await Cravey.run(["tag", id("Sister"), "+Calm", "family", "--library", path])
        #expect(added.status == 0, "\(added.error)")
        #expect(added.error.contains("#calm #family"))
        #expect(try await Cravey.run(["tag", id("Sister"), "-family", "--library", path]).status == 0)
        #expect(try await Cravey.run(["tag", id("Walk"), "+calm", "+outside", "--library", path]).status == 0)

        // Then the tags print, list and export narrow to one, and --json has them
        #expect(try await Cravey.run(["tag", id("Sister"), "--library", path]).output == "#calm\n")
        let listed = try await Cravey.run(["list", "--tag", "outside", "--json", "--library", path])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["title"] as? String } == ["Walk"] && objects.first?["tags"] as? [String] == ["calm", "outside"])
        #expect(try await Cravey.run(["quickplay", "--tag", "calm", "--library", path]).output.contains("Sister"))
        let csv = try await Cravey.run(["export", "--format", "csv", "--tag", "#outside", "--library", path])
        #expect(csv.output.split(separator: "\r\n").count == 2)
        let none = try await Cravey.run(["list", "--tag", "nothing", "--library", path])
        #expect(none.status == 0 && none.error.contains("No recording is tagged \"nothing\""))
    }

    @Test("markers: --add with --label and --remove change them, the list and --json print them")
    func markersCommand() async throws {
        // Given a clip of 0.5 s
        let library = try await Fixture.library(titles: ["Talk"])
        let recording = try #require(try library.recordings().first)
        let path = library.url.path, id = String(recording.id.description.prefix(8))
        let none = try await Cravey.run(["markers", id, "--library", path])
        #expect(none.status == 0 && none.output.isEmpty && none.error.contains("has no markers"))

        // When two markers are added, one labelled, and a third removed again
        let added = try await Cravey.run(["markers", id, "--add", "0.25", "--label", "the point", "--library", path])
        #expect(added.status == 0 && added.error.contains("1 marker now"), "\(added.error)")
        #expect(try await Cravey.run(["markers", id, "--add", "0:00.1", "--library", path]).status == 0)
        #expect(try await Cravey.run(["markers", id, "--add", "0.4", "--label", "-2 dB", "--library", path]).status == 0)
        #expect(try await Cravey.run(["markers", id, "--remove", "3", "--library", path]).status == 0)

        // Then they are listed in time order, and --json has them, as list --json and info do
        #expect(try await Cravey.run(["markers", id, "--library", path]).output == "1\t0:00.100\n2\t0:00.250\tthe point\n")
        let json = try await Cravey.run(["markers", id, "--json", "--library", path])
        let markers = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(markers.map { $0["at"] as? Double } == [0.1, 0.25] && markers[0]["label"] is NSNull && markers[1]["label"] as? String == "the point")
        let listed = try await Cravey.run(["list", "--json", "--library", path])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect((objects.first?["markers"] as? [[String: Any]])?.count == 2)
        let info = try await Cravey.run(["info", id, "--json", "--library", path])
        #expect(info.output.contains("\"label\" : \"the point\""), "\(info.output)")
        #expect(try await Cravey.run(["info", id, "--library", path]).output.contains("Markers:     2 (`cravey markers \(id)` lists them)"))
    }

    @Test("notes may hold a line break; list, quickplay, info, delete and doctor show a stored control character escaped")
    func controlCharacters() async throws {
        let library = try await Fixture.library(titles: ["Breathe", "Other"])
        let recording = try #require(try library.recordings().first { $0.title == "Breathe" })
        let other = try #require(try library.recordings().first { $0.title == "Other" })
        let path = library.url.path
        let id = String(recording.id.description.prefix(8))

        // Given: notes typed with a line break are taken (typed control characters are refused:
        // UsageErrorTests, in process)
        let multiline = try await Cravey.run(["edit", id, "--notes", "one\ntwo", "--library", path])
        #expect(multiline.status == 0, "\(multiline.error)")

        // When: an older or hand-edited row holds control characters anyway
        for row in [recording, other] {
            _ = try library.storeWords(of: row.id, title: "\u{1B}]0;pwned\u{07}x\u{9B}",
                                                      notes: "one\ntwo\u{1B}[2J\u{7F}", purpose: nil)
        }
        let list = try await Cravey.run(["list", "--library", path])
        let quick = try await Cravey.run(["quickplay", "--library", path])
        let info = try await Cravey.run(["info", id, "--library", path])
        let json = try await Cravey.run(["info", id, "--json", "--library", path])
        let deleted = try await Cravey.run(["delete", id, "--yes", "--library", path])
        try FileManager.default.removeItem(at: library.url.appendingPathComponent(other.filePath))
        let doctor = try await Cravey.run(["doctor", "--library", path])

        // Then: no control character reaches the terminal; each shows as its code point.
        let shown = "<U+001B>]0;pwned<U+0007>x<U+009B>"
        for result in [list, quick, info, doctor, deleted] {
            let printed = result.output + result.error
            #expect(!printed.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(printed.debugDescription)")
            #expect(printed.contains(shown), "\(printed)")
        }
        #expect(list.status == 0 && quick.status == 0 && info.status == 0 && deleted.status == 0)
        #expect(info.output.contains("one⏎two<U+001B>[2J<U+007F>"), "\(info.output)")
        // JSON escapes them itself and keeps the stored text exact.
        #expect(try Recording.jsonDecoder().decode(Recording.self, from: Data(json.output.utf8)).title == "\u{1B}]0;pwned\u{07}x\u{9B}")
    }

    @Test("export writes a formula-looking title with a leading apostrophe; --raw keeps it verbatim")
    func exportFormula() async throws {
        let library = try await Fixture.library(titles: ["=HYPERLINK(\"http://x\",\"click\")"])
        let path = library.url.path
        let safe = try await Cravey.run(["export", "--format", "csv", "--library", path])
        #expect(safe.status == 0, "\(safe.error)")
        #expect(safe.output.contains("\"'=HYPERLINK(\"\"http://x\"\",\"\"click\"\")\""), "\(safe.output)")
        let raw = try await Cravey.run(["export", "--format", "csv", "--raw", "--library", path])
        #expect(raw.status == 0, "\(raw.error)")
        #expect(raw.output.contains(",\"=HYPERLINK(\"\"http://x\"\",\"\"click\"\")\","), "\(raw.output)")
    }

    @Test("export --output writes a private file; storage counts bytes, types and purposes")
    func exportAndStorage() async throws {
        let library = try await Fixture.library(clips: 3)
        let path = library.url.path
        let output = temporaryFolder().appendingPathComponent("export.csv")
        let exported = try await Cravey.run(["export", "--format", "csv", "--output", output.path, "--library", path])
        #expect(exported.status == 0, "\(exported.error)")
        #expect(try FileManager.default.attributesOfItem(atPath: output.path)[.posixPermissions] as? Int == 0o600)
        #expect(try String(contentsOf: output, encoding: .utf8).components(separatedBy: "\r\n").count == 5)

        let storage = try await Cravey.run(["storage", "--json", "--library", path])
        let report = try JSONDecoder().decode(LibraryStorage.Report.self, from: Data(storage.output.utf8))
        #expect(report.recordings == 3 && report.byType["audio"] == 3 && report.byPurpose["none"] == 3)
        #expect(report.totalBytes == (try library.storage.report().totalBytes) && report.totalBytes > 0)

        let noDirectory = try await Cravey.run(["export", "--format", "json", "--output", "/nonexistent/dir/x.json", "--library", path])
        #expect(noDirectory.status == 73)
    }

    @Test("import stores a WAV as AAC and prints its id; random bytes exit 65 and store nothing")
    func importCommand() async throws {
        let library = try await Fixture.library(clips: 0)
        let path = library.url.path
        let wav = try await Fixture.make("wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1"])
        let imported = try await Cravey.run(["--library", path, "import", wav.path, "--title", "Breathe", "--purpose", "reflection"])
        #expect(imported.status == 0, "\(imported.error)")
        let id = try #require(RecordingID(imported.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let row = try #require(try library.recording(id))
        #expect(row.title == "Breathe" && row.purpose == .reflection && row.type == .audio)

        let garbage = temporaryFolder().appendingPathComponent("garbage.mp3")
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255) }).write(to: garbage)
        let refused = try await Cravey.run(["import", garbage.path, "--library", path])
        #expect(refused.status == 65)
        #expect(refused.error.contains(garbage.path) && refused.error.contains("Nothing was stored"))
        #expect(try library.count() == 1)
    }

    @Test("without cravey-media beside it, a media command exits 1 saying what is missing; library commands still work")
    func missingMediaExecutable() async throws {
        let alone = await URL(fileURLWithPath: try RoutingTests.craveyAlone())
        let folder = alone.deletingLastPathComponent()
        let devices = try await run(alone.path, ["devices"], environment: Cravey.environment())
        #expect(devices.status == 1)
        #expect(devices.error.contains("cravey-media") && !devices.error.contains("Error:"), "\(devices.error)")
        let list = try await run(alone.path, ["list", "--library", folder.appendingPathComponent("lib").path],
                                        environment: Cravey.environment())
        #expect(list.status == 0, "\(list.error)")
    }

    @Test("a damaged database exits 1 naming the file and the way out, and changes nothing")
    func damagedDatabase() async throws {
        let library = temporaryLibrary()
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let garbage = Data((0..<8192).map { _ in UInt8.random(in: 0...255) })
        let file = library.appendingPathComponent("library.sqlite")
        try garbage.write(to: file)
        let result = try await Cravey.run(["list", "--library", library.path])
        #expect(result.status == 1)
        #expect(result.error.contains(file.path) && result.error.contains("damaged") && result.error.contains("doctor --repair"))
        #expect(try Data(contentsOf: file) == garbage, "the damaged file is left as it was")
    }

    @Test("delete-all --yes empties the library; doctor then reports it healthy")
    func deleteAllAndDoctor() async throws {
        let library = try await Fixture.library(clips: 5)
        let path = library.url.path
        let refused = try await Cravey.run(["delete-all", "--library", path])
        #expect(refused.status == 64)
        #expect(try library.count() == 5)
        let deleted = try await Cravey.run(["delete-all", "--yes", "--json", "--library", path])
        #expect(deleted.status == 0, "\(deleted.error)")
        #expect(try library.count() == 0 && library.storage.report().totalBytes == 0)
        let doctor = try await Cravey.run(["doctor", "--library", path])
        #expect(doctor.status == 0 && doctor.output.contains("healthy"))
    }
}
