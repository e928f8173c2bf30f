import CraveyCore
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands

/// `cravey backup`, which `cravey` runs itself, in process (``Outcome``): where it refuses to
/// write. (A backup read by tar and sha256sum, restored whole, and damaged: BackupArchiveTests.swift;
/// its progress on a terminal: the CLI's BackupTests.)
@Suite("cravey backup, in process", .temporaryFiles)
struct BackupCommandTests {
    @Test("backup refuses a place inside the library and a file already there unless --force (exit 64)")
    func refusals() async throws {
        let library = try await Fixture.library(titles: ["Kept"])
        let inside = try await Outcome.of(["backup", "--output", library.url.appendingPathComponent("Recordings/b.tar").path, "--library", library.url.path])
        #expect(inside.status == 64 && inside.error.contains("inside the library folder"), "\(inside)")

        let existing = temporaryFolder().appendingPathComponent("keep.tar")
        try Data("mine".utf8).write(to: existing)
        let refused = try await Outcome.of(["backup", "--output", existing.path, "--library", library.url.path])
        #expect(try refused.status == 64 && Data(contentsOf: existing) == Data("mine".utf8), "\(refused)")
        let forced = try await Outcome.of(["backup", "--output", existing.path, "--force", "--library", library.url.path])
        #expect(try forced.status == 0 && Data(contentsOf: existing).count > 2048, "\(forced)")
    }
}
