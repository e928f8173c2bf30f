import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// A command killed at a bad instant: a confirmed delete stays deleted, an interrupted import
/// leaves nothing (issue 9, items 11 and 12).
@Suite("Crashes: kills and Ctrl-C leave the library whole", .temporaryFiles)
struct CrashTests {
    /// The names in a folder, `Thumbnails` left out.
    func names(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0 != "Thumbnails" }
    }

    /// Waits (polling every millisecond, off the cooperative pool) until `condition` holds or
    /// `process` has ended; true when it held while the process still ran.
    func wait(for process: TestProcess, until condition: @escaping @Sendable () -> Bool) async throws -> Bool {
        let held = Locked(false)
        _ = try await poll(within: 3600, every: 0.001) {
            guard process.isRunning else { return true }
            held.withLock { $0 = condition() }
            return held.withLock { $0 }
        }
        return held.withLock { $0 }
    }

    @Test("kill -9 in the middle of delete-all: the next command finishes it, and doctor --repair brings no deleted clip back", .timeLimit(.minutes(5)))
    func deleteAllKilled() async throws {
        var killedMidway = false
        for _ in 0..<3 where !killedMidway {
            // Given a library of 1,500 clips
            let library = try await Fixture.library(clips: 1500)
            let path = library.url.path
            let recordings = library.recordingsURL

            // When delete-all is killed once its files have started to go
            let process = try Cravey.start(["delete-all", "--yes", "--library", path])
            let folder = recordings.path
            killedMidway = try await wait(for: process) {
                ((try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? 0) < 1500
            }
            if killedMidway { kill(process.processIdentifier, SIGKILL) }
            await exit(of: process)

            // Then the next command sees nothing, the files are gone, and a repair recovers none
            let list = try await Cravey.run(["list", "--json", "--library", path])
            #expect(list.status == 0 && list.output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "\(list.output)")
            #expect(names(in: recordings).isEmpty, "\(names(in: recordings).count) files left")
            let repair = try await Cravey.run(["doctor", "--repair", "--library", path])
            #expect(repair.status == 0, "\(repair.output.prefix(300)) \(repair.error)")
            #expect(!repair.output.contains("Registered"), "\(repair.output.prefix(300))")
            #expect(try library.count() == 0)
        }
        #expect(killedMidway, "delete-all ended before it could be killed in the middle")
    }

    @Test("an import stopped by Ctrl-C exits 130 and leaves nothing; one killed with -9 leaves what doctor --repair removes (exit 0)", .timeLimit(.minutes(5)))
    func importInterrupted() async throws {
        // Given a long WAV, which import transcodes for about 15 s (a few seconds were too few:
        // under the full parallel run the poll below came late and the import had finished)
        let wav = try await Fixture.make("wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1200:sample_rate=16000", "-ac", "1"])
        for signal in [SIGINT, SIGKILL] {
            let library = try RecordingLibrary(at: temporaryLibrary())
            let path = library.url.path
            let recordings = library.recordingsURL

            // When the import is signalled once its file in the library has bytes
            let process = try Cravey.start(["import", wav.path, "--library", path])
            let folder = recordings.path
            let started = try await wait(for: process) {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                return names.contains { name in
                    name != "Thumbnails" && ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int) ?? 0) > 100_000
                }
            }
            #expect(started, "the import ended before it could be interrupted")
            kill(process.processIdentifier, signal)
            await exit(of: process)

            if signal == SIGINT {
                // Then Ctrl-C: exit 130, and nothing is left
                #expect(process.terminationStatus == 130, "exit \(process.terminationStatus)")
                #expect(names(in: recordings).isEmpty, "\(names(in: recordings).prefix(3))")
            } else {
                // Then kill -9: a plain repair succeeds and leaves nothing
                let repair = try await Cravey.run(["doctor", "--repair", "--library", path])
                #expect(repair.status == 0, "\(repair.output) \(repair.error)")
                #expect(names(in: recordings).isEmpty, "\(names(in: recordings).prefix(3))")
            }
            #expect(try library.count() == 0)
        }
    }

    @Test("Ctrl-C just after an import has saved exits 0 and prints the id: the clip was stored", .timeLimit(.minutes(2)))
    func importInterruptedAfterSave() async throws {
        // Given an import whose stdout is a pipe already full, so it stops at printing the id,
        // after its clip is saved and the file's lock is released
        let library = try RecordingLibrary(at: temporaryLibrary())
        let path = library.url.path
        let output = Pipe()
        let writer = output.fileHandleForWriting.fileDescriptor
        _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)
        let filler = [UInt8](repeating: UInt8(ascii: "."), count: 4096)
        var filled = 0
        while true {
            let written = write(writer, filler, filler.count)
            guard written > 0 else { break }
            filled += written
        }
        _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) & ~O_NONBLOCK)
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: Cravey.executable)
        process.arguments = ["import", MediaFixture.named("tone.m4a").url.path, "--library", path]
        process.environment = Cravey.environment()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output.fileHandleForWriting
        process.standardError = FileHandle.nullDevice
        try process.run()
        try output.fileHandleForWriting.close()
        let saved = try await wait(for: process) {
            guard let recording = try? library.recordings().first else { return false }
            let descriptor = open(library.fileURL(recording.filePath).path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            return flock(descriptor, LOCK_EX | LOCK_NB) == 0
        }
        #expect(saved, "the import ended before its clip was saved and released")

        // When Ctrl-C arrives while it prints, and the output is read after a second
        kill(process.processIdentifier, SIGINT)
        // A second, ended early if it exits: that it did not stop within it is what is tested.
        let stoppedAlone = try await poll(within: 1, every: 0.001) { !process.isRunning }
        let printed = try await offPool { output.fileHandleForReading.readDataToEndOfFile() }
        await exit(of: process)

        // Then it did not stop on its own: it printed the id of the stored clip and exited 0
        #expect(!stoppedAlone, "exit \(process.terminationStatus) while its output was blocked")
        #expect(process.terminationStatus == 0, "exit \(process.terminationStatus)")
        let recordings = try library.recordings()
        #expect(recordings.count == 1)
        let id = String(decoding: printed.dropFirst(filled), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id == recordings.first?.id.description, "printed \(id)")
    }
}
