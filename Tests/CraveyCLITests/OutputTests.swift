import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// Every command that prints data checks its writes: a full disk is exit 73 with a message, a
/// reader that has gone (`cravey list | head`) ends the command quietly with 0.
@Suite("Standard output", .temporaryFiles)
struct OutputTests {
    /// The commands that print data, in both executables.
    static func printing(_ library: RecordingLibrary) throws -> [[String]] {
        let path = library.url.path
        let id = try #require(try library.recordings().first).id.uuid.uuidString
        return [["list", "--json"], ["list"], ["info", id], ["info", id, "--json"], ["quickplay", "--json"],
                ["export", "--format", "json"], ["export", "--format", "csv"], ["storage"], ["devices", "--json"]]
            .map { $0 + ["--library", path] } + [["--version"], ["--help"], ["help", "list"], ["record", "--help"]]
    }

    @Test("output to a full disk (/dev/full) exits 73 saying the disk is full, for every printing command")
    func fullDisk() async throws {
        // Given a library with a clip, and stdout on /dev/full
        let library = try await Fixture.library(titles: ["Breathe"])
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? full.close() }

        for arguments in try Self.printing(library) {
            // When a command prints
            let result = try await Cravey.run(arguments, writingTo: full)

            // Then it exits 73 with one message naming the cause
            #expect(result.status == 73, "\(arguments): \(result.error)")
            #expect(result.error.hasPrefix("cravey: ") && result.error.contains("No space left"), "\(arguments): \(result.error)")
        }
    }

    @Test("output to a pipe nobody reads ends quietly with 0, for every printing command")
    func closedPipe() async throws {
        // Given a library with a clip
        let library = try await Fixture.library(titles: ["Breathe"])

        for arguments in try Self.printing(library) {
            // When a command prints into a pipe whose reader has gone
            let pipe = try Cravey.closedPipe()
            let result = try await Cravey.run(arguments, writingTo: pipe)
            try pipe.close()

            // Then it ends quietly
            #expect(result.status == 0, "\(arguments): \(result.error)")
            #expect(result.error.isEmpty, "\(arguments): \(result.error)")
        }
    }
}
