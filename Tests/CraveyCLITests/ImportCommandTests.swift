import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

@Suite("cravey import", .temporaryFiles)
struct ImportCommandTests {
    @Test("without --title the clip is named after its file (long names shortened at a word with …); --title wins; --title \"\" keeps the automatic title")
    func titleFromFileName() async throws {
        // Given: an empty library and a clip named coach-talk.mp3
        let library = try await Fixture.library(clips: 0)
        let path = library.url.path
        let folder = temporaryFolder().appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let named = folder.appendingPathComponent("coach-talk.mp3")
        try FileManager.default.copyItem(at: MediaFixture.named("tone.mp3").url, to: named)
        let long = folder.appendingPathComponent("coach talk about breathing before the big race 2026.mp3")
        try FileManager.default.copyItem(at: named, to: long)

        func importedTitle(_ arguments: [String]) async throws -> String {
            let imported = try await Cravey.run(["import", "--library", path] + arguments)
            #expect(imported.status == 0, "\(imported.error)")
            let id = try #require(RecordingID(imported.output.trimmingCharacters(in: .whitespacesAndNewlines)))
            return try #require(try library.recording(id)).title
        }
        // When / Then: no --title names it after the file, without the extension
        #expect(try await importedTitle([named.path]) == "coach-talk")
        #expect(try await importedTitle([long.path]) == "coach talk about breathing before the…")
        // When / Then: a title the person typed wins, and an empty one is the automatic title
        #expect(try await importedTitle([named.path, "--title", "Breathe"]) == "Breathe")
        #expect(try await importedTitle([named.path, "--title", ""]).hasPrefix("Recording "))
    }

    @Test("a directory exits 64 at once, naming what it is; nothing is stored")
    func refusesDirectory() async throws {
        // Given: an empty library and a folder
        let library = try await Fixture.library(clips: 0)
        let folder = temporaryFolder().appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // When: importing the folder
        let refused = try await Cravey.run(["import", folder.path, "--library", library.url.path])
        // Then: 64, the message says it is a directory, and the library is empty
        #expect(refused.status == 64, "\(refused.error)")
        #expect(refused.error.contains("it is a directory"), "\(refused.error)")
        #expect(try library.count() == 0)
    }

    @Test("every malformed file in Media/ exits 65 saying nothing was stored, and the library stays empty",
          arguments: MediaFixture.malformed)
    func refusesMalformed(fixture: MediaFixture) async throws {
        // Given: an empty library
        let library = try await Fixture.library(clips: 0)
        // When: importing the malformed file
        let refused = try await Cravey.run(["import", fixture.url.path, "--library", library.url.path])
        // Then: 65 (undecodable media), the message names the file, and nothing is stored
        #expect(refused.status == 65, "\(refused.error)")
        #expect(refused.error.contains(fixture.url.path) && refused.error.contains("Nothing was stored"), "\(refused.error)")
        #expect(try library.count() == 0)
        #expect(library.store.storedFiles().isEmpty, "left behind: \(library.store.storedFiles())")
    }
}
