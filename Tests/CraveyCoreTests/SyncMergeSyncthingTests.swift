@testable import CraveyCore
import CraveyTestSupport
import Foundation
import Testing

/// Two libraries kept in step by the real Syncthing (``SyncthingDevices``), each with its own
/// copy of the sync folder, as a person's laptop and desktop: what each sends reaches the other
/// and is merged there by the rules.
extension SyncMergeTests {
    @Test("two libraries on real Syncthing: a clip recorded on one arrives on the other; played on both offline, the plays add up; retitled on both, the later title wins on both; deleted on one while edited on the other, it stays deleted on both; both end with the same clips")
    func carriedBySyncthing() async throws {
        let devices = try await SyncthingDevices(count: 2)
        let (laptopFolder, desktopFolder) = (devices.folders[0], devices.folders[1])
        let logs = devices.logs
        try await offPool {
            let (laptop, desktop) = (try Capture.library(), try Capture.library())
            let breathe = try Capture.save("Breathe", in: laptop, bytes: "the laptop's recording")
            let walk = try Capture.save("Walk", in: laptop, bytes: "another recording")
            #expect(try laptop.sync.join(laptopFolder, passphrase: Capture.passphrase, workFactor: 10).created)

            // The folder's key reaches the desktop; then it joins, and the clips arrive.
            let keyArrived = waitUntil(within: 60, every: 0.1) { (try? SyncFolder.join(at: desktopFolder, passphrase: Capture.passphrase)) != nil }
            #expect(keyArrived, "the folder's key did not reach the desktop:\n\(SyncFolderTests.tail(logs))")
            #expect(try !desktop.sync.join(desktopFolder, passphrase: Capture.passphrase, workFactor: 10).created)
            let arrived = try waitUntil(within: 60, every: 0.2) {
                try desktop.sync.merge()
                return try desktop.recording(breathe.id) != nil && desktop.recording(walk.id) != nil
            }
            #expect(arrived, "the laptop's clips did not reach the desktop:\n\(SyncFolderTests.tail(logs))")
            #expect(try Data(contentsOf: desktop.url.appendingPathComponent(ClipFiles(breathe).media().path)) == Data("the laptop's recording".utf8))

            // Offline (neither merges meanwhile): played on both, retitled on both (the desktop
            // last), the walk deleted on the laptop while the desktop retitles it.
            _ = try laptop.countPlay(of: breathe)
            _ = try desktop.countPlay(of: try #require(try desktop.recording(breathe.id)))
            _ = try desktop.countPlay(of: try #require(try desktop.recording(breathe.id)))
            try laptop.edit(breathe.id) { $0.title = "Slow breath" }
            _ = try laptop.delete(walk.id)
            Thread.sleep(forTimeInterval: 0.01)  // (a millisecond apart at least: the desktop's title is the later)
            try desktop.edit(breathe.id) { $0.title = "Deep breath" }
            try desktop.edit(walk.id) { $0.title = "Run" }

            // Each merges what arrives (as `cravey sync` does) until both hold the same.
            var last = ""
            let same = try waitUntil(within: 90, every: 0.2) {
                try laptop.sync.merge()
                try desktop.sync.merge()
                let (left, right) = (try Self.snapshot(laptop), try Self.snapshot(desktop))
                last = "\(left)\n---\n\(right)"
                return left == right && left.clips.count == 1 && left.clips[breathe.id.description]?.plays == 3
                    && left.clips[breathe.id.description]?.title == "Deep breath" && left.deleted == [walk.id.description]
            }
            #expect(same, "the libraries did not reach one state:\n\(last)\n\(SyncFolderTests.tail(logs))")
            #expect(!FileManager.default.fileExists(atPath: desktop.url.appendingPathComponent(ClipFiles(walk).media().path).path))
            #expect(try Capture.outbox(laptop).isEmpty && Capture.outbox(desktop).isEmpty)
        }
    }

    @Test("three libraries on real Syncthing, each recording, playing, tagging and retitling what the others sent while Syncthing carries it, end with the same clips")
    func threeBySyncthing() async throws {
        let devices = try await SyncthingDevices(count: 3)
        let (folders, logs) = (devices.folders, devices.logs)
        try await offPool {
            let libraries = try (0..<3).map { _ in try Capture.library() }
            _ = try Capture.save("First", in: libraries[0])
            #expect(try libraries[0].sync.join(folders[0], passphrase: Capture.passphrase, workFactor: 10).created)
            for index in 1..<3 {
                let keyArrived = waitUntil(within: 60, every: 0.1) { (try? SyncFolder.join(at: folders[index], passphrase: Capture.passphrase)) != nil }
                #expect(keyArrived, "the folder's key did not reach device \(index):\n\(SyncFolderTests.tail(logs))")
                _ = try Capture.save("Made on \(index)", in: libraries[index])
                #expect(try !libraries[index].sync.join(folders[index], passphrase: Capture.passphrase, workFactor: 10).created)
            }
            // Each works on whatever has reached it, while Syncthing carries the rest.
            for round in 0..<4 {
                for (index, library) in libraries.enumerated() {
                    try library.sync.merge()
                    for clip in try library.recordings() {
                        _ = try library.countPlay(of: clip)
                        try library.tag(clip.id, adding: ["round\(round)"])
                        try library.edit(clip.id) { $0.title = "Round \(round) on \(index)" }
                    }
                }
            }
            var last = ""
            let same = try waitUntil(within: 90, every: 0.2) {
                for library in libraries { try library.sync.merge() }
                let snapshots = try libraries.map(Self.snapshot)
                last = snapshots.map(\.description).joined(separator: "\n---\n")
                return snapshots.allSatisfy { $0 == snapshots[0] } && snapshots[0].clips.count == 3
            }
            #expect(same, "the libraries did not reach one state:\n\(last)\n\(SyncFolderTests.tail(logs))")
        }
    }
}
