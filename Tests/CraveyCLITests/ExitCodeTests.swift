import CraveyTestSupport
import Foundation
import Testing

/// A file whose name starts with a dash, given to import (by `cravey-media`) in the current
/// folder (the process's own): 64 with how to give it, never the help with exit 0. (The help when
/// asked, and the refusals decided by parsing alone, are checked in process: `ImportCommandTests`
/// and `UsageErrorTests` in CraveyCommandsTests.)
@Suite("Exit codes for invalid input", .temporaryFiles)
struct ExitCodeTests {
    /// Runs the built `cravey` in `folder`, so a file name can be given relative to it.
    func run(in folder: URL, _ arguments: [String]) async throws -> CommandResult {
        try await CraveyTestSupport.run("env", ["-C", folder.path, Cravey.executable] + arguments, environment: Cravey.environment())
    }

    @Test("import of a file whose name starts with a dash is refused (64) with how to give it, never the help (0)",
          arguments: ["-dash.m4a", "-x.m4a", "--dash.m4a"])
    func importDashedNameWithoutSeparator(name: String) async throws {
        // Given a real audio file whose name starts with a dash, in the current folder
        let folder = temporaryLibrary()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try await Fixture.audio(), to: folder.appendingPathComponent(name))
        let library = folder.appendingPathComponent("library").path

        // When importing it by name, without `--`
        let result = try await run(in: folder, ["import", name, "--library", library])

        // Then nothing is imported, and the error says to put `--` before the name
        #expect(result.status == 64, "\(result.output)\(result.error)")
        #expect(!result.output.contains("USAGE"), "the help was printed: \(result.output)")
        #expect(result.error.contains("cravey import -- \(name)"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: library), "a library was made at \(library)")
    }

    @Test("import -- -dash.m4a imports the file, with options before the `--`")
    func importDashedNameAfterSeparator() async throws {
        // Given a real audio file named -dash.m4a in the current folder
        let folder = temporaryLibrary()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try await Fixture.audio(), to: folder.appendingPathComponent("-dash.m4a"))
        let library = folder.appendingPathComponent("library").path

        // When importing it after `--`
        let result = try await run(in: folder, ["import", "--library", library, "--title", "Dash", "--", "-dash.m4a"])

        // Then it is in the library
        #expect(result.status == 0, "\(result.error)")
        let list = try await Cravey.run(["list", "--json", "--library", library])
        #expect(list.output.contains("\"Dash\""), "\(list.output)")
    }
}
