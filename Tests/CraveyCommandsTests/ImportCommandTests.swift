import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey import` on what it refuses, and its help, run in process (``Outcome``) as
/// `cravey-media` runs it. (The title it gives a clip, from its command line: ImportOptionsTests;
/// a file name with a dash in the current folder: the CLI's ExitCodeTests.)
@Suite("cravey import", .temporaryFiles)
struct ImportCommandTests {
    @Test("a directory exits 64 at once, naming what it is; nothing is stored")
    func refusesDirectory() async throws {
        // Given: an empty library and a folder
        let library = try await Fixture.library(clips: 0)
        let folder = temporaryFolder().appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // When: importing the folder
        let refused = try await Outcome.of(["import", folder.path, "--library", library.url.path])
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
        let refused = try await Outcome.of(["import", fixture.url.path, "--library", library.url.path])
        // Then: 65 (undecodable media), the message names the file, and nothing is stored
        #expect(refused.status == 65, "\(refused.error)")
        #expect(refused.error.contains(fixture.url.path) && refused.error.contains("Nothing was stored"), "\(refused.error)")
        #expect(try library.count() == 0)
        #expect(library.store.storedFiles().isEmpty, "left behind: \(library.store.storedFiles())")
    }

    @Test("import -h and --help still show the help (0)", arguments: ["-h", "--help"])
    func importHelp(flag: String) async throws {
        // When asking import for its help
        let result = try await Outcome.of(["import", flag])

        // Then the help is shown and mentions how to give a name that starts with a dash
        #expect(result.status == 0, "\(result.error)")
        let unwrapped = result.output.replacingOccurrences(of: "\n", with: " ")
        #expect(unwrapped.contains("USAGE: cravey import") && unwrapped.contains("`cravey import -- -"), "\(result.output)")
    }
}
