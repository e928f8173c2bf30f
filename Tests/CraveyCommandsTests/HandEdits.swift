import CraveyKit
import CraveyTestSupport
import Foundation
import GRDB
import Testing
@testable import CraveyCore

/// Runs `sql` on the SQLite file at `database` over a connection of its own, as a person with
/// `sqlite3` would edit a library by hand, past cravey's door.
func editByHand(_ database: URL, _ sql: String) throws {
    try DatabaseQueue(path: database.path).write { db in try db.execute(sql: sql) }
}

/// A backup of `library` (`cravey backup`, in process), taken apart, changed by `change` (given
/// its cravey-backup/ folder) and put together again, its entries in their order, with a manifest
/// that agrees with what is in it: an archive whose checksums say nothing against it, as a hand
/// or a program other than cravey would make it. Read and written with the backup's own tar
/// (ustar) blocks and SHA-256.
func rebuiltBackup(of library: RecordingLibrary, _ change: (URL) throws -> Void) async throws -> URL {
    let archive = temporaryFolder().appendingPathComponent("original-\(UUID().uuidString.prefix(8)).tar")
    let made = try await Outcome.of(["backup", "--output", archive.path, "--library", library.url.path])
    try #require(made.status == 0, "\(made)")
    let folder = temporaryFolder().appendingPathComponent("unpacked-\(UUID().uuidString.prefix(8))")
    let bytes = [UInt8](try Data(contentsOf: archive))
    var entries: [Tar.Entry] = []
    var offset = 0
    while offset + Tar.blockSize <= bytes.count, let entry = try Tar.entry(in: Array(bytes[offset..<offset + Tar.blockSize])) {
        offset += Tar.blockSize
        let file = folder.appendingPathComponent(entry.name)
        try FileManager.default.createDirectory(at: entry.isFolder ? file : file.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !entry.isFolder {
            try Data(bytes[offset..<offset + Int(entry.size)]).write(to: file)
            offset += Int(entry.size) + Tar.padding(after: entry.size)
        }
        entries.append(entry)
    }
    let root = folder.appendingPathComponent("cravey-backup")
    try change(root)
    let manifestFile = root.appendingPathComponent("manifest.json")
    var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestFile)) as? [String: Any])
    manifest["files"] = try #require(manifest["files"] as? [[String: Any]]).map { listed in
        var listed = listed
        let data = try Data(contentsOf: root.appendingPathComponent(try #require(listed["path"] as? String)))
        (listed["size"], listed["sha256"]) = (data.count, SHA256.of(data))
        return listed
    }
    try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]).write(to: manifestFile)
    var packed = Data()
    for var entry in entries {
        let data = entry.isFolder ? Data() : try Data(contentsOf: folder.appendingPathComponent(entry.name))
        entry.size = Int64(data.count)
        packed += Tar.header(entry, modified: Date()) + data + Data(count: Tar.padding(after: entry.size))
    }
    let rebuilt = temporaryFolder().appendingPathComponent("rebuilt-\(UUID().uuidString.prefix(8)).tar")
    try (packed + Data(count: 2 * Tar.blockSize)).write(to: rebuilt)
    return rebuilt
}
