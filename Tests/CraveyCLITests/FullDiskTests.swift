import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// A real full disk: a 1 MiB tmpfs mounted for the test (mounting needs root, as CI has).
@Suite("A full disk", .serialized, .temporaryFiles)
struct FullDiskTests {
    /// Whether this machine lets the tests mount a tmpfs (root with CAP_SYS_ADMIN).
    static func canMount() async -> Bool {
        guard let folder = try? TemporaryFolder() else { return false }
        defer { folder.remove() }
        let point = folder.url
        guard (try? await run("mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", point.path]).status) == 0 else { return false }
        _ = try? await run("umount", [point.path])
        return true
    }

    @Test("recording and importing into a full library exit 73 naming the fix; the audio so far is kept and private",
          .enabled("this machine does not let the tests mount a small tmpfs") { await canMount() })
    func fullDisk() async throws {
        let mountPoint = temporaryLibrary()
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let mounted = try await run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint.path])
        try #require(mounted.status == 0, "mount failed: \(mounted.error)")
        // Unmounted whatever happens (awaited: a defer cannot).
        do {
            try await fill(mountPoint)
        } catch {
            _ = try? await run("umount", [mountPoint.path])
            throw error
        }
        _ = try await run("umount", [mountPoint.path])
    }

    /// Records and imports into the library at `mountPoint`, a small tmpfs, once it is nearly full.
    func fill(_ mountPoint: URL) async throws {
        let library = mountPoint.appendingPathComponent("library")
        // Made by a command that writes: one that only reads makes nothing.
        #expect(try await Cravey.run(["doctor", "--repair", "--library", library.path]).status == 0)
        // Leave about 24 KiB: two seconds of audio.
        let free = try #require(try FileManager.default.attributesOfFileSystem(forPath: mountPoint.path)[.systemFreeSize] as? Int)
        // A new library's database and its log take about 480 KiB (its migrations written once).
        try #require(free > 24 * 1024, "the new library left \(free) bytes of the tmpfs")
        try Data(count: free - 24 * 1024).write(to: mountPoint.appendingPathComponent("filler"))

        let microphone = try await VirtualMicrophone()
        let player = try await microphone.play(frequency: 440)
        defer { withExtendedLifetime(player) {} }  // its deinit stops it, on a thread of its own
        let recorded = try await Cravey.run(["record", "--seconds", "8", "--device", microphone.monitor, "--library", library.path])
        #expect(recorded.status == 73)
        #expect(recorded.error.contains("No space left") && recorded.error.contains("Free some disk space"))
        #expect(recorded.error.contains("doctor --repair"))
        #expect(try await listed(library).isEmpty)
        let kept = try partials(in: library)
        #expect(kept.count == 1)
        for file in kept {
            #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
        }

        let wav = try await Fixture.make("wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=3"])
        let imported = try await Cravey.run(["import", wav.path, "--library", library.path])
        #expect(imported.status == 73 && imported.error.contains("Nothing was stored"))
        #expect(try partials(in: library).count == 1, "the failed import left nothing behind")
    }
}
