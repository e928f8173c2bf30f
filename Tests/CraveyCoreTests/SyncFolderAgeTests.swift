@testable import CraveyCore
import CraveyTestSupport
import Foundation
import Testing

/// The sync folder's change files opened by the real `age`, with the folder's key: what the
/// folder holds is age's format, not cravey's alone (docs/sync.md).
extension SyncFolderTests {
    @Test("age -d -i with the folder's key opens a change file, and gives the changes as JSON")
    func ageOpensChangeFiles() async throws {
        let url = try emptyFolder()
        let folder = try SyncFolder.create(at: url, passphrase: passphrase, workFactor: 10)
        let device = SyncDevice()
        let written = changes(device, 1, title: "Call Siobhan tonight")
        try folder.write(written, as: 1, of: device)
        let keyFile = temporaryFolder().appendingPathComponent("key.txt")
        try Data("\(folder.key)\n".utf8).write(to: keyFile)
        let opened = try await run("age", ["-d", "-i", keyFile.path, folder.changes(of: device).appendingPathComponent(SyncFolder.name(1)).path])
        #expect(opened.status == 0, "\(opened.error)")
        #expect(try JSONDecoder().decode([SyncChange].self, from: Data(opened.output.utf8)) == written)
    }
}
