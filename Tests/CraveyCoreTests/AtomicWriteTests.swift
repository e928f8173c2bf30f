@testable import CraveyCore
import Foundation
import SystemPackage
import Testing

@Suite("Atomic writes")
final class AtomicWriteTests: Sendable {
    let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-core-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Swift Testing makes an instance per test and drops it when the test ends, pass or fail.
    deinit { try? FileManager.default.removeItem(at: folder) }

    @Test("short writes are followed by more writes until every byte is in the file")
    func shortWrites() throws {
        // Given a write that takes at most 7 bytes at a time
        var faults = StorageFaults()
        faults.write = StorageFaults.writesTakingAtMost(7)
        let data = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 31) })
        let url = folder.appendingPathComponent("short.bin")

        // When writing atomically
        try FileStorageManager.writeAtomically(to: url, doing: "write", faults: faults) { try $0.write(data) }

        // Then the file holds all of it, privately, and no temporary file is left
        #expect(try Data(contentsOf: url) == data)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["short.bin"])
    }

    @Test("a write that fails is a cannotWrite error carrying its Errno, and leaves nothing behind")
    func failedWrite() throws {
        // Given a write that fails with a full disk after the first bytes
        var faults = StorageFaults()
        faults.write = { descriptor, bytes throws(Errno) in throw Errno.noSpace }
        let url = folder.appendingPathComponent("full.bin")

        // When writing atomically
        let error = try #require(throws: CraveyError.self) {
            try FileStorageManager.writeAtomically(to: url, doing: "write", faults: faults) { try $0.write(Data(count: 100)) }
        }

        // Then the error says so, and neither the file nor a temporary file exists
        #expect(error.kind == .cannotWrite)
        #expect(error.underlying as? Errno == .noSpace)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("the real disk: an export written atomically is the export's bytes, mode 0600; a missing folder is ENOENT")
    func realExport() throws {
        // Given a library with no fault injected
        let library = try RecordingLibrary(at: folder.appendingPathComponent("library"))
        let url = folder.appendingPathComponent("export.csv")

        // When exporting to a file and to a folder that does not exist
        try library.archive.export(.csv, to: url)
        let missing = try #require(throws: CraveyError.self) {
            try library.archive.export(.csv, to: folder.appendingPathComponent("no/such/export.csv"))
        }

        // Then the file matches the bytes, and the failure keeps its errno
        #expect(try Data(contentsOf: url) == library.archive.export(.csv))
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int == 0o600)
        #expect(missing.kind == .cannotWrite && missing.underlying as? Errno == .noSuchFileOrDirectory)
    }
}
