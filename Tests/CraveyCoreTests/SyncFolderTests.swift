@testable import CraveyCore
import CraveyTestSupport
import Foundation
import Testing

/// The sync folder's files (docs/sync.md), in process: set up, joined, written and read, and
/// what it refuses. (That `age -d` opens them: SyncFolderAgeTests.)
@Suite("Sync: the folder", .temporaryFiles)
struct SyncFolderTests {
    let passphrase = Array("correct horse battery staple".utf8)

    /// A new empty folder (as Syncthing makes one: with its marker).
    func emptyFolder() throws -> URL {
        let url = temporaryFolder().appendingPathComponent("sync-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url.appendingPathComponent(".stfolder"), withIntermediateDirectories: true)
        return url
    }

    func changes(_ device: SyncDevice, _ file: UInt64, title: String) -> [SyncChange] {
        var clock = SyncClock(device: device)
        return [SyncChange(id: .init(device: device, file: file, index: 0), time: clock.now(), clip: RecordingID(), kind: .field(.title, title)),
                SyncChange(id: .init(device: device, file: file, index: 1), time: clock.now(), clip: RecordingID(),
                           kind: .play(id: UUID(), at: Date(), completed: true))]
    }

    @Test("an empty folder is set up (devices/, inbox/, .stignore, its key for the passphrase); joined with the passphrase it gives the same key; a wrong one is refused and nothing changes")
    func setUpAndJoin() throws {
        let url = try emptyFolder()
        let made = try SyncFolder.create(at: url, passphrase: passphrase, workFactor: 10)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: url.path))
        #expect(names == [".stfolder", ".stignore", "cravey-folder.age", "devices", "inbox"])
        let joined = try SyncFolder.join(at: url, passphrase: passphrase)
        #expect(joined.key == made.key && joined.id == made.id)
        let before = try Data(contentsOf: url.appendingPathComponent("cravey-folder.age"))
        #expect(throws: CraveyError.self) { try SyncFolder.join(at: url, passphrase: Array("wrong".utf8)) }
        #expect(try Data(contentsOf: url.appendingPathComponent("cravey-folder.age")) == before)
    }

    @Test("two machines setting up one empty folder at once: one key is the folder's, the other is refused as a sync folder already, and both join it with the passphrase; a .stignore of the person's own is left as it is")
    func setUpAtOnce() throws {
        for _ in 0..<8 {
            let url = try emptyFolder()
            try Data("mine\n".utf8).write(to: url.appendingPathComponent(".stignore"))
            let made = Locked<[Result<SyncFolder, CraveyError>]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                let result = Result { () throws(CraveyError) -> SyncFolder in
                    do { return try SyncFolder.create(at: url, passphrase: passphrase, workFactor: 10) } catch { throw error as? CraveyError ?? CraveyError(.other, "\(error)") }
                }
                made.withLock { $0.append(result) }
            }
            let results = made.withLock { $0 }
            let winners = results.compactMap { try? $0.get() }
            #expect(winners.count == 1, "\(results)")
            #expect(results.contains { if case .failure(let error) = $0 { error.kind == .invalidInput && error.message.contains("a sync folder already") } else { false } })
            let joined = try SyncFolder.join(at: url, passphrase: passphrase)
            #expect(joined.key == winners.first?.key)
            #expect(try String(contentsOf: url.appendingPathComponent(".stignore"), encoding: .utf8) == "mine\n")
            #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("devices").path))
        }
    }

    @Test(".stignore has Syncthing leave alone the temporary name a file is written under where a file system has no unnamed files")
    func ignoresTemporaryNames() throws {
        let url = try emptyFolder()
        _ = try SyncFolder.create(at: url, passphrase: passphrase, workFactor: 10)
        let ignore = try String(contentsOf: url.appendingPathComponent(".stignore"), encoding: .utf8)
        #expect(ignore.split(separator: "\n").contains(Substring(SyncFolder.ignored)))
        let pattern = String(SyncFolder.ignored.dropFirst("(?d)".count))
        for name in [SyncFolder.name(1), "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0.age"] {
            let temporary = ClipFiles.temporary(for: StoredFile(.library, name)).name
            #expect(fnmatch(pattern, temporary, 0) == 0, "\(temporary)")
            #expect(fnmatch(pattern, name, 0) != 0)
        }
    }

    @Test("a folder holding anything else, or a sync folder already, is not set up; a folder with no key file is not joined")
    func refusals() throws {
        let other = try emptyFolder()
        try Data("mine".utf8).write(to: other.appendingPathComponent("notes.txt"))
        #expect(throws: CraveyError.self) { try SyncFolder.create(at: other, passphrase: passphrase, workFactor: 10) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: other.path).sorted() == [".stfolder", "notes.txt"])
        #expect(throws: CraveyError.self) { try SyncFolder.join(at: other, passphrase: passphrase) }
        let url = try emptyFolder()
        _ = try SyncFolder.create(at: url, passphrase: passphrase, workFactor: 10)
        #expect(throws: CraveyError.self) { try SyncFolder.create(at: url, passphrase: passphrase, workFactor: 10) }
    }

    @Test("changes written by one device are read by another's join of the folder, listed by device and last number; written twice, a file keeps its first bytes; no title is readable in any file")
    func writeAndRead() throws {
        let url = try emptyFolder()
        let laptop = try SyncFolder.create(at: url, passphrase: passphrase, workFactor: 10)
        let desktop = try SyncFolder.join(at: url, passphrase: passphrase)
        let device = SyncDevice()
        let first = changes(device, 1, title: "Call Siobhan tonight"), second = changes(device, 2, title: "Walk")
        try laptop.write(first, as: 1, of: device)
        try laptop.write(second, as: 2, of: device)
        let file = laptop.changes(of: device).appendingPathComponent(SyncFolder.name(1))
        let bytes = try Data(contentsOf: file)
        try laptop.write(second, as: 1, of: device)
        #expect(try Data(contentsOf: file) == bytes)
        #expect(try desktop.read(1, of: device) == first && desktop.read(2, of: device) == second && desktop.read(3, of: device) == nil)
        #expect(try desktop.devices() == [device: 2])
        let walker = FileManager.default.enumerator(atPath: url.path)!
        for case let name as String in walker {
            let data = (try? Data(contentsOf: url.appendingPathComponent(name))) ?? Data()
            #expect(!name.contains("Siobhan") && data.range(of: Data("Siobhan".utf8)) == nil, "\(name)")
        }
        #expect(SyncFolder.name(1) == "00000000000000000001.age" && SyncFolder.name(.max) == "18446744073709551615.age")
    }

    @Test("a change file cut short (still arriving), with a byte changed, of another folder's key, too large, or holding another device's changes is refused, never read")
    func untrustedFiles() throws {
        let url = try emptyFolder()
        let folder = try SyncFolder.create(at: url, passphrase: passphrase, workFactor: 10)
        let device = SyncDevice()
        try folder.write(changes(device, 1, title: "A"), as: 1, of: device)
        let file = folder.changes(of: device).appendingPathComponent(SyncFolder.name(1))
        let whole = try Data(contentsOf: file)
        for damaged in [whole.prefix(whole.count - 5), { var d = whole; d[d.count - 20] ^= 1; return d }(), whole.prefix(100)] {
            try damaged.write(to: file)
            #expect(throws: (any Error).self) { try folder.read(1, of: device) }
        }
        // Another folder's key
        let elsewhere = try SyncFolder.create(at: try emptyFolder(), passphrase: passphrase, workFactor: 10)
        try FileManager.default.removeItem(at: file)
        try elsewhere.write(changes(device, 1, title: "A"), as: 1, of: device)
        try FileManager.default.copyItem(at: elsewhere.changes(of: device).appendingPathComponent(SyncFolder.name(1)), to: file)
        #expect(throws: Age.Refusal.wrongKey) { try folder.read(1, of: device) }
        // Another device's changes in this device's file
        try FileManager.default.removeItem(at: file)
        let intruder = SyncDevice()
        try folder.write(changes(intruder, 1, title: "B"), as: 1, of: intruder)
        try FileManager.default.copyItem(at: folder.changes(of: intruder).appendingPathComponent(SyncFolder.name(1)), to: file)
        #expect(throws: CraveyError.self) { try folder.read(1, of: device) }
        // Too large: refused before it is read (a sparse file)
        try FileManager.default.removeItem(at: file)
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(SyncFolder.largestChangeFile + 1))
        try handle.close()
        #expect(throws: CraveyError.self) { try folder.read(1, of: device) }
    }

    @Test("a device's name in the folder is its 32 hex digits, and only that", arguments: ["", "0", String(repeating: "g", count: 32), String(repeating: "A", count: 32), String(repeating: "0", count: 33)])
    func deviceNames(name: String) {
        #expect(SyncDevice(hex: name) == nil)
        let device = SyncDevice()
        #expect(SyncDevice(hex: device.hex) == device)
    }
}
