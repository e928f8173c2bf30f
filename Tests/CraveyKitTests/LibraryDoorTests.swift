import CraveyCommands
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// The one door: what an embedder can do with a library, and what the door guarantees that the
/// pieces behind it used to leave to each caller.
@Suite("The library's one door", .temporaryFiles)
struct LibraryDoorTests {
    @Test("a writers' lock that cannot be taken is an error (cannotWrite), never a silent no-lock: nothing is deleted")
    func lockFailsClosed() async throws {
        // Given a library with two clips whose lock file is a link (it cannot be opened without following it)
        let library = try await Fixture.library(clips: 2)
        let lock = library.url.appendingPathComponent(WritersLock.fileName)
        try? FileManager.default.removeItem(at: lock)
        try FileManager.default.createSymbolicLink(atPath: lock.path, withDestinationPath: "/dev/null")

        // When deleting one clip, and everything
        let one = #expect(throws: CraveyError.self) { try library.delete(try library.recordings()[0].id) }
        let all = #expect(throws: CraveyError.self) { try library.storage.deleteAll() }

        // Then both are refused as cannot-write, naming the lock file, and nothing is gone
        #expect(one?.kind == .cannotWrite && one?.message.contains(lock.path) == true, "\(String(describing: one))")
        #expect(all?.kind == .cannotWrite)
        #expect(try library.count() == 2)
        #expect(library.store.storedFiles().count == 4)  // each clip's media and its own copy
        #expect(!FileManager.default.fileExists(atPath: library.url.appendingPathComponent("delete-all.pending").path))
    }

    @Test("the library's errors say what happened and to what, without the command line's advice; the command line adds it")
    func errorsWithoutAdvice() async throws {
        // Given a library and the test sound server
        let library = try await Fixture.library(clips: 1)
        _ = TestSoundServer.address

        // When an unknown id is asked for, an unknown source recorded from, and a missing file played
        let unknownID = #expect(throws: CraveyError.self) { try library.recording(matching: "ffffffff") }
        let unknownSource = await #expect(throws: CraveyError.self) {
            _ = try await library.record(RecordingOptions(source: "no_such_source", maxDuration: 1))
        }
        let clip = try library.recordings()[0]
        try FileManager.default.removeItem(at: try library.fileURL(of: clip))
        let missing = await #expect(throws: CraveyError.self) { _ = try await library.play(clip) }

        // Then each message names its subject and no program's option or command...
        let errors = [unknownID, unknownSource, missing].compactMap { $0 }
        try #require(errors.count == 3)
        #expect(errors[0].message.contains("ffffffff") && errors[1].message.contains("no_such_source")
                && errors[2].message.contains(clip.filePath))
        for error in errors {
            #expect(!error.message.contains("cravey ") && !error.message.contains("--") && !error.message.contains("scripts/"),
                    "\(error.message)")
        }
        // ... which the command line adds in its words
        #expect(Messages.text(for: errors[0]).contains("cravey list"))
        #expect(Messages.text(for: errors[1]).contains("cravey devices"))
        #expect(Messages.text(for: errors[2]).contains("cravey doctor"))
    }

    @Test("cancelling an import stops it and stores nothing; an import saved first is returned whole")
    func importCancellation() async throws {
        // Given a library and a file that takes a while to transcode (10 minutes of WAV: a
        // second or more even on a fast machine)
        let library = try RecordingLibrary(at: temporaryLibrary())
        let long = try await Fixture.make("wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=600:sample_rate=48000"])

        // When its import is cancelled once its file is being written (cancelled from the thread
        // that sees the file: a busy cooperative pool could resume this test only after the save)
        let work = Task { try await library.importFile(at: long, metadata: try RecordingMetadata(title: "Long")) }
        // (Polled: a file appearing is no event this process can wait on. 120 s: it checks the
        // whole file decodes first, seconds on a busy machine.)
        let started = try await poll(within: 120, every: 0.001) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: library.recordingsURL.path)) ?? []
            guard names.contains(where: { $0.hasSuffix(".importing") }) else { return false }
            work.cancel()
            return true
        }
        #expect(started, "the import never began writing its file")
        work.cancel()
        let outcome = await work.result

        // Then it ends with CancellationError, and nothing is stored (how soon, a terminal's
        // Ctrl-C shows: ImportDeadlineTests)
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(try library.count() == 0)
        #expect(library.store.storedFiles().isEmpty, "\(library.store.storedFiles())")

        // And an import left to finish is stored whole, whatever a late cancellation says
        let short = try await Fixture.audio(seconds: 1)
        let done = Task { try await library.importFile(at: short, metadata: try RecordingMetadata(title: "Short")) }
        let saved = try await done.value
        done.cancel()
        #expect(try library.recording(saved.id)?.title == "Short")
    }
}
