import CraveyCore
import Foundation
import GRDB
import Testing

@Suite("CraveyError")
struct CraveyErrorTests {
    @Test("a damaged database is kind .other and keeps SQLite's error underneath")
    func damagedDatabase() throws {
        // Given a library folder whose database is random bytes
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-core-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255) }).write(to: folder.appendingPathComponent("library.sqlite"))

        // When opening it
        let error = try #require(throws: CraveyError.self) { try RecordingLibrary(at: folder) }

        // Then the kind says how to exit, and the database error is kept
        #expect(error.kind == .other)
        #expect((error.underlying as? DatabaseError)?.resultCode == .SQLITE_NOTADB)
    }

    @Test("database errors map to kinds by result code and keep the error; other errors are not database errors")
    func databaseMapping() throws {
        // Given SQLite errors of several codes, and an error that is not one
        let full = DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full")
        let readOnly = DatabaseError(resultCode: .SQLITE_READONLY)
        let busy = DatabaseError(resultCode: .SQLITE_BUSY)

        // When explaining them
        let mapped = [full, readOnly, busy].map { CraveyError(database: $0) }

        // Then each has its kind and its error underneath
        #expect(mapped.map { $0?.kind } == [.cannotWrite, .cannotWrite, .other])
        #expect(mapped.map { ($0?.underlying as? DatabaseError)?.resultCode } == [.SQLITE_FULL, .SQLITE_READONLY, .SQLITE_BUSY])
        #expect(CraveyError(database: CocoaError(.fileNoSuchFile)) == nil)
    }
}
