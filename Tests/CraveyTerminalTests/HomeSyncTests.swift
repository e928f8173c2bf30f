import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit
@testable import CraveyTerminal

/// The home screen's sync (docs/sync.md), without a terminal: what lands in the sync folder is
/// merged while the screen is open, one sync at a time, and the header shows the last one. The
/// state as values; then real SQLite libraries sharing a real folder, the folder's inotify watch
/// (``SyncWatch``) and the sync carried out as the shell carries it (``SyncWork``, off the pool).
@Suite("The home screen's sync, without a terminal", .temporaryFiles)
struct HomeSyncTests {
    static let passphrase = Array("correct horse battery staple".utf8)
    static let noon = Calendar.current.date(bySettingHour: 12, minute: 0, second: 0, of: Date())!

    /// Libraries joined to one new folder, the first setting it up.
    static func joined(_ libraries: RecordingLibrary...) async throws -> URL {
        let folder = temporaryFolder().appendingPathComponent("sync-\(UUID().uuidString.prefix(8))")
        try await offPool {
            for library in libraries { _ = try library.sync.join(folder, passphrase: passphrase, workFactor: 10) }
        }
        return folder
    }

    /// Carries out `effects` as the shell does: each sync run off the pool, its outcome sent
    /// back, and the sync it asks for next.
    static func carry(_ effects: [HomeEffect], _ home: inout HomeDriver) async throws {
        var effects = effects
        while effects.contains(.sync) {
            let work = SyncWork(library: home.state.library)
            let outcome = try await offPool { work.perform() }
            effects = home.send(.synced(outcome, at: Date()))
        }
    }

    /// Whether `watch` has something to say within `milliseconds` (polled on a thread of its own).
    static func wakes(_ watch: SyncWatch, within milliseconds: Int32) async throws -> Bool {
        let watched = watch.descriptor
        return try await offPool {
            var descriptor = pollfd(fd: watched, events: Int16(POLLIN), revents: 0)
            return poll(&descriptor, 1, milliseconds) > 0
        }
    }

    @Test("what lands starts one sync; what lands while it runs asks for one more after it, never two at once; a file of the inbox still arriving asks for one a few seconds later")
    func oneAtATime() async throws {
        var home = try HomeDriver(try await Fixture.library(clips: 1))
        #expect(home.send(.syncLanded) == [.sync])
        #expect(home.send(.syncLanded) == [], "one runs: none more now")
        #expect(home.send(.syncLanded) == [])
        #expect(home.send(.synced(.merged(.init(), unsent: nil), at: Self.noon)) == [.sync], "one more, for what landed meanwhile")
        #expect(home.send(.synced(.merged(.init(), unsent: nil), at: Self.noon)) == [], "nothing landed meanwhile")
        #expect(home.send(.syncLanded) == [.sync])
        #expect(home.send(.synced(.merged(.init(), unsent: nil, arriving: true), at: Self.noon)) == [.syncLater],
                "a file of the inbox still being written: looked at again once still long enough")
    }

    @Test("the header shows the last sync: when, and the changes merged, up to date, refused or waiting; a failure in a word, as a warning, said once on the status line; the screen goes on")
    func lastSyncShown() async throws {
        var home = try HomeDriver(try await Fixture.library(clips: 3), columns: 100)
        #expect(!home.lines[0].contains("sync"), "a library that does not sync shows nothing of it")
        home.send(.syncLanded)
        #expect(home.lines[0].contains("syncing…"))
        var merging = LibrarySync.Merging()
        merging.files = 2
        merging.changes = 3
        home.send(.synced(.merged(merging, unsent: nil), at: Self.noon))
        #expect(home.lines[0].contains("synced 12:00 · 3 changes merged"), "\(home.lines[0])")
        #expect(home.lines[0].hasPrefix(" cravey") && home.lines[0].hasSuffix("3 clips · ? help"))
        #expect(!home.state.sync.failed)

        home.send(.syncLanded)
        home.send(.synced(.merged(.init(), unsent: nil), at: Self.noon.addingTimeInterval(60)))
        #expect(home.lines[0].contains("synced 12:01 · up to date"))
        home.send(.syncLanded)
        home.send(.synced(.merged(.init(), unsent: nil, imported: 2), at: Self.noon))
        #expect(home.lines[0].contains("synced 12:00 · 2 imported"))

        merging = LibrarySync.Merging()
        (merging.changes, merging.refused, merging.waiting) = (1, 1, 2)
        home.send(.syncLanded)
        home.send(.synced(.merged(merging, unsent: "The sync folder is read-only."), at: Self.noon))
        #expect(home.lines[0].contains("synced 12:00 · 1 change merged, 1 refused, 2 waiting, not sent"))
        #expect(home.state.sync.failed, "drawn as a warning")

        let gone = HomeSync.failure(CraveyError(.notFound, "The sync folder /media/stick/cravey is not there (or has no devices/): is its disk mounted? Nothing was merged."))
        home.send(.syncLanded)
        home.send(.synced(gone, at: Self.noon))
        #expect(home.lines[0].contains("sync failed 12:00 · folder not there"))
        #expect(home.message?.contains("/media/stick/cravey is not there") == true)
        #expect(home.state.dialog.message?.warning == true)
        home.press(.character("j"))
        home.send(.said(HomeMessage(text: "Played \"Clip 1\".", warning: false)))
        home.send(.syncLanded)
        home.send(.synced(gone, at: Self.noon))
        #expect(home.message == "Played \"Clip 1\".", "the same failure again is not said again: the header shows it")
        #expect(!home.state.finished && home.selected?.title == "Clip 1", "the screen goes on: keys move the selection")
    }

    @Test("a clip library B saves and sends lands in A's open home screen within 5 s: B, joining after the screen opened, is watched as it appears; the folder's watch wakes the screen, the merge runs off its thread, the list shows the clip and the header the sync")
    func clipLandsWhileOpen() async throws {
        let a = try await Fixture.library(titles: ["Breathe"])
        let b = try await Fixture.library()
        let folder = try await Self.joined(a)
        var home = try HomeDriver(a)
        let watch = try #require(SyncWatch(a), "A syncs: its folder is watched")
        // B's device appears in the folder once the screen is open.
        try await offPool { _ = try b.sync.join(folder, passphrase: Self.passphrase, workFactor: 10) }
        // Opening merges what landed while it was closed.
        try await Self.carry(home.send(.syncLanded), &home)
        #expect(home.lines[0].contains("synced"))
        _ = watch.changed()

        // The 5 s count from the files' arrival: B's import has sent them once it returns (its
        // own time, an FFmpeg conversion, took 12 s on a loaded clean-clone run: ci54).
        let source = try await Fixture.audio(seconds: 0.5)
        let saved = try await b.importFile(at: source, metadata: try RecordingMetadata(title: "Walk at dusk"))
        let started = ContinuousClock.now
        let deadline = started + .seconds(5)
        while !home.listed.contains("Walk at dusk"), ContinuousClock.now < deadline {
            let left = Int32(max((deadline - ContinuousClock.now).components.seconds * 1000, 1))
            guard try await Self.wakes(watch, within: left), watch.changed() else { continue }
            try await Self.carry(home.send(.syncLanded), &home)
        }
        let took = ContinuousClock.now - started
        #expect(home.listed.contains("Walk at dusk"), "A lists B's clip: \(home.listed)")
        #expect(took < .seconds(5), "within 5 s of B's change arriving: \(took)")
        #expect(try await offPool { try a.recording(saved.id)?.title } == "Walk at dusk")
        #expect(home.lines[0].contains("merged"), "\(home.lines[0])")
        #expect(home.screen.contains("2 clips"))
    }

    @Test("a merge that fails is shown and the screen goes on: a change file that does not authenticate is refused, a folder gone says so, and once back it is watched again and the next sync merges")
    func failedMergeShown() async throws {
        let a = try await Fixture.library(titles: ["Breathe"])
        let b = try await Fixture.library(titles: ["Walk"])
        let folder = try await Self.joined(a, b)
        var home = try HomeDriver(a)
        let watch = try #require(SyncWatch(a))
        // B's next change file, damaged.
        let device = try #require(try await offPool { try b.sync.joined() }).device.hex
        let changes = folder.appendingPathComponent("devices/\(device)/changes")
        let next = try FileManager.default.contentsOfDirectory(atPath: changes.path).count + 1
        let damaged = changes.appendingPathComponent(String(format: "%020d.age", next))
        try Data("not an age file".utf8).write(to: damaged)
        try await Self.carry(home.send(.syncLanded), &home)
        #expect(home.lines[0].contains("refused"), "\(home.lines[0])")
        #expect(home.state.sync.failed)
        #expect(home.listed.contains("Walk"), "B's files before the damaged one are merged")
        try FileManager.default.removeItem(at: damaged)

        let aside = folder.appendingPathExtension("away")
        try FileManager.default.moveItem(at: folder, to: aside)
        try await Self.carry(home.send(.syncLanded), &home)
        #expect(home.lines[0].contains("sync failed") && home.lines[0].contains("folder not there"), "\(home.lines[0])")
        #expect(home.message?.contains(folder.path) == true)
        home.press(.character("j"))
        #expect(!home.state.finished)

        // A change of the screen's own whose send failed: shown, not on stderr.
        home.send(.unsent(CraveyError(.notFound, "The sync folder \(folder.path) is not there (or has no devices/)."), at: Self.noon))
        #expect(home.lines[0].contains("sync failed 12:00 · not sent"), "\(home.lines[0])")
        #expect(home.message?.hasPrefix("Not sent to the sync folder:") == true && home.message?.contains("The change is kept") == true)

        // Back as a disk mounted again brings it: the same files, other folders (inodes).
        try FileManager.default.copyItem(at: aside, to: folder)
        try await Self.carry(home.send(.syncLanded), &home)
        #expect(home.lines[0].contains("synced"), "\(home.lines[0])")
        #expect(!home.state.sync.failed)

        // Watched again once back (the screen rescans at the library's next change): B's next
        // change wakes it.
        watch.rescan()
        _ = watch.changed()
        try await offPool {
            let walk = try #require(try b.recordings().first)
            try b.edit(walk.id) { $0.title = "Walk home" }
        }
        let woke = try await Self.wakes(watch, within: 5000)
        #expect(woke && watch.changed(), "the folder back is watched again")
        try await Self.carry(home.send(.syncLanded), &home)
        #expect(home.listed.contains("Walk home"), "\(home.listed)")
    }

    @Test("a recording dropped into the sync folder's inbox while the home screen is open wakes it, is imported by its merge and listed, and taken out of the inbox")
    func inboxTakenWhileOpen() async throws {
        let a = try await Fixture.library(titles: ["Breathe"])
        let folder = try await Self.joined(a)
        var home = try HomeDriver(a)
        let watch = try #require(SyncWatch(a))
        let source = try await Fixture.audio(seconds: 0.5)
        let dropped = folder.appendingPathComponent("inbox/Phone memo.wav")
        try FileManager.default.copyItem(at: source, to: dropped)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: dropped.path)
        let woke = try await Self.wakes(watch, within: 5000)
        #expect(woke && watch.changed(), "the inbox is watched")
        try await Self.carry(home.send(.syncLanded), &home)
        #expect(home.listed.contains("Phone memo"), "\(home.listed)")
        #expect(home.lines[0].contains("1 imported"), "\(home.lines[0])")
        #expect(!FileManager.default.fileExists(atPath: dropped.path), "taken out of the inbox")
    }
}
