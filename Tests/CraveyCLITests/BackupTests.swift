import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// `cravey backup` on a terminal, as a person runs it. (A backup read by tar and sha256sum,
/// restored whole, and damaged: CraveyCommandsTests' BackupArchiveTests.swift; a restore into a
/// library, a format-1 backup, a clip left out and restore's refusals: RestoreCommandTests.)
@Suite("Backup and restore", .temporaryFiles)
struct BackupTests {
    @Test("on a terminal a backup shows its progress, then what it wrote")
    func progressOnTerminal() async throws {
        let library = try await Fixture.livedInForBackup()
        let shown = try await Cravey.runOnTerminal(["backup", "--output", temporaryFolder().appendingPathComponent("again.tar").path,
                                                    "--library", library.url.path])
        #expect(shown.status == 0 && shown.output.contains("Backing up… 100%") && shown.output.contains("Backed up 4 clips"), "\(shown.output)")
    }
}
