import Foundation
import SystemPackage

/// Sync (docs/sync.md), reached from the door as `library.sync`: the library joins a sync
/// folder (set up from an empty one, or another machine's joined), and its changes, captured in
/// the outbox with each transaction (``SyncLog``, ``SyncCapture``), are sent into the folder as
/// its change files, each clip's media before the change that names it: by the store after
/// each change's commit, and by `cravey sync`.
package struct LibrarySync {
    let store: LibraryStore

    /// The folder's key as the library keeps it (0600, beside its database), in the file
    /// `age-keygen` writes: `age -d -i sync-key.txt FILE` opens any file cravey put in the folder.
    static let keyFile = StoredFile(.library, "sync-key.txt")

    /// The sync folder's `inbox/`, whose media is imported once, by one machine.
    package var inbox: SyncInbox { SyncInbox(store: store) }

    /// What joining did.
    package struct Joining: Sendable {
        /// Whether the folder was set up here (it was empty), rather than joined.
        package var created: Bool
        package var device: SyncDevice
        /// The change files sent, the first holding every clip the library had.
        package var sent: Sending
    }

    /// What a send wrote into the folder.
    package struct Sending: Sendable, Equatable {
        package var files = 0
        package var blobs = 0
    }

    /// Joins the sync folder at `url` with `passphrase`: one another library set up is joined,
    /// an empty one (or one that is not there yet, in a folder that is) is set up; then every
    /// clip of the library is sent. Refuses, nothing changed: a folder that is the library, is
    /// inside it or holds it, or is neither empty nor a sync folder (`.notSyncFolder`); a
    /// passphrase that does not open it (`.wrongPassphrase`); a library that has joined another
    /// folder (`.invalidInput`).
    package func join(_ url: URL, passphrase: [UInt8], opened: SyncFolder? = nil, workFactor: Int = Age.workFactor) throws -> Joining {
        let url = url.standardizedFileURL
        if let refusal = store.refusal { throw refusal }
        try Self.refuseOverlap(url, library: store.libraryURL)
        if let joined = try joined(), joined.folder.path != url.path {
            throw CraveyError(.invalidInput, "This library syncs with \(joined.folder.path) already; it syncs with one folder. Nothing was changed.")
        }
        // (What is there and is no folder is refused by ``SyncFolder/create(at:passphrase:workFactor:)``.)
        if !FileManager.default.fileExists(atPath: url.path) {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        let keyFile = url.appendingPathComponent(SyncFolder.keyFileName)
        var created = opened == nil && !FileManager.default.fileExists(atPath: keyFile.path)
        let folder: SyncFolder
        do {
            folder = try opened ?? (created ? try SyncFolder.create(at: url, passphrase: passphrase, workFactor: workFactor)
                             : try SyncFolder.join(at: url, passphrase: passphrase))
        } catch where created && FileManager.default.fileExists(atPath: keyFile.path) {
            // Another machine set the folder up meanwhile: joined with the passphrase, if it opens it.
            folder = try SyncFolder.join(at: url, passphrase: passphrase)
            created = false
        }
        let text = "# The key of the sync folder \(url.path) (\(folder.id.uuidString.lowercased())): `age -d -i` this file opens its files.\n\(folder.key)\n"
        try store.files?.writeAtomically(Self.keyFile, doing: "keep the sync folder's key in") { try $0.write(Data(text.utf8)) }
        let device = try store.write { tx in
            let log = SyncLog(tx.db)
            if let joined = try log.joined() { return joined.device }
            let device = SyncDevice()
            try log.save(SyncLog.Joined(device: device, place: SyncLog.Place(of: store.libraryURL),
                                        latest: SyncTime(milliseconds: 0, counter: 0, device: device), nextFile: 1,
                                        folder: url, folderID: folder.id))
            tx.syncEverything()  // every clip the library has, told at this commit
            return device
        }
        return Joining(created: created, device: device, sent: try send())
    }

    /// Sends the outbox: each change file not yet in the folder is written there (the media
    /// its changes name first, each blob once), then taken out of the outbox in a transaction
    /// of its own. A crash between the two leaves the file in the outbox, and the next send
    /// finds it written and only takes it out: the same number, the same bytes. `afterWriting`
    /// is told each file's number once it is in the folder (a test stops there). Refuses
    /// (`.notFound`) a library that has joined no sync folder.
    @discardableResult
    package func send(afterWriting: (UInt64) throws -> Void = { _ in }) throws -> Sending {
        guard let (folder, joined) = try joinedFolder() else {
            throw CraveyError(.notFound, "This library syncs with no folder: join one first (`cravey sync FOLDER`).")
        }
        var sending = Sending(), deletes = false
        if !folder.hasName(joined.device) { try folder.write(name: Self.hostName, of: joined.device) }
        for pending in try store.read({ db in try SyncLog(db).outbox() }) {
            for change in pending.changes {
                if case .delete = change.kind { deletes = true }
                guard let clip = change.clip else { continue }
                let media: SyncChange.Media
                let type: RecordingType
                switch change.kind {
                case .clip(let made, _, let first): (type, media) = (made, first)
                case .media(let replaced):
                    guard let row = try store.read({ db in try RecordingRepository(db).recording(clip) }) else { continue }  // deleted since: its delete follows
                    (type, media) = (row.type, replaced)
                default: continue
                }
                let files = ClipFiles(id: clip, type: type)
                for (blob, file) in [(media.file, files.media()), (media.thumbnail, files.file(.thumbnail)), (media.waveform, files.file(.waveform))] {
                    guard let blob, let file, blob.device == pending.device else { continue }
                    guard !FileManager.default.fileExists(atPath: folder.file(of: blob).path) else { continue }
                    guard case .regular = store.status(of: file), let descriptor = try? store.open(file) else { continue }  // gone since
                    defer { try? descriptor.close() }
                    if try folder.write(blob, from: descriptor) { sending.blobs += 1 }
                }
            }
            try folder.write(pending.changes, as: pending.file, of: pending.device)
            try afterWriting(pending.file)
            try store.write { tx in try SyncLog(tx.db).sent(pending.file, of: pending.device) }
            sending.files += 1
        }
        if deletes { takeOutDeletedBlobs(joined, from: folder) }
        return sending
    }

    /// Takes the blobs this device wrote of clips deleted (here, or on another machine and
    /// merged) out of the folder, once nothing is left to send (a delete is in the folder before
    /// the blobs leave it: a device that has not merged the clip yet waits for its delete
    /// rather than for the blobs); another device's are its own to take out, and forgotten
    /// here. After a send that held a delete (not after every change's), and after each merge.
    /// What cannot be removed now (a folder that cannot be written) is tried again then;
    /// nothing fails for it.
    private func takeOutDeletedBlobs(_ joined: SyncLog.Joined, from folder: SyncFolder) {
        guard joined.place == SyncLog.Place(of: store.libraryURL),  // a copy's first write takes a new device first
              let (blobs, unsent) = try? store.read({ db in (try SyncBlobs(db: db).ofDeletedClips(), try SyncLog(db).outbox().count) }),
              !blobs.isEmpty, unsent == 0 else { return }
        let done = blobs.filter { blob in
            guard blob.device == joined.device else { return true }
            let file = folder.file(of: blob.device, blob.id)
            do {
                try FileManager.default.removeItem(at: file)
                return true
            } catch {
                return !FileManager.default.fileExists(atPath: file.path)
            }
        }
        _ = try? store.write { tx in try SyncBlobs(db: tx.db).forget(done) }
    }

    /// Sends after a change's commit (``LibraryStore/write(_:)``, the writers' lock let go): a
    /// folder that cannot be written now (not there, full, read-only) costs the change nothing,
    /// as the outbox keeps it for the next send, and whoever asked is told (``whenUnsent(_:)``).
    func sendAfterCommit() {
        do {
            try send()
        } catch {
            guard let folder = try? joined()?.folder else { return }
            store.unsent.failed(folder, error)
        }
    }

    /// Tells `tell` from now on (in place of whoever was told before), on the thread of the
    /// change, each time a change's send after its commit fails: the sync folder, and why. The
    /// change is kept in the outbox; `cravey sync` or the next change sends it.
    package func whenUnsent(_ tell: @escaping @Sendable (URL, CraveyError) -> Void) {
        store.unsent.listen(tell)
    }

    /// What a merge did.
    package struct Merging: Sendable, Equatable {
        /// Change files merged, and the changes they held.
        package var files = 0
        package var changes = 0
        /// Media copied into the library (new clips, new media).
        package var blobs = 0
        /// Change files left for the next merge: a clip they change or media they name has not
        /// arrived yet, or a file before them was refused.
        package var waiting = 0
        /// Change files refused (``Status/refused``).
        package var refused = 0

        package init() {}
    }

    /// Merges the other devices' changes from the folder into the library, by the rules of
    /// docs/sync.md, in one transaction (``SyncMerge``); the merge's own changes are not sent
    /// as this device's. Refuses (`.notFound`) a library that has joined no sync folder.
    @discardableResult
    package func merge(now: Date = Date()) throws -> Merging {
        guard let (folder, joined) = try joinedFolder() else {
            throw CraveyError(.notFound, "This library syncs with no folder: join one first (`cravey sync FOLDER`).")
        }
        guard FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("devices").path) else {
            throw CraveyError(.notFound, "The sync folder \(folder.url.path) is not there (or has no devices/): is its disk mounted? Nothing was merged.")
        }
        // A library copied or restored elsewhere takes its new device first: the device it was
        // copied from is another library's now, whose later files it merges.
        let place = SyncLog.Place(of: store.libraryURL)
        let device = joined.place == place ? joined.device : try store.write { tx in try SyncLog(tx.db).device(joined, at: place).device }
        let merging = try SyncMerge(store: store, folder: folder, device: device).merge(now: now)
        takeOutDeletedBlobs(joined, from: folder)
        return merging
    }

    /// What leaving did.
    package struct Leaving: Sendable {
        package var folder: URL
        package var device: SyncDevice
        /// Whether this library's files were taken out of the folder.
        package var erased: Bool
        /// Change files that could not be sent before leaving, and never will be.
        package var unsent: Int
    }

    /// Stops syncing and forgets the folder's key: the changes not sent yet are sent first
    /// (when the folder can be written), then the device and its outbox are forgotten. With
    /// `erasing`, this library's files (its change files and media: `devices/DEVICE/`) are
    /// taken out of the folder first, so out of every machine's; each library keeps its clips.
    /// Refuses (`.notFound`, nothing changed) a library that syncs with no folder, and, erasing,
    /// a folder that is not there.
    package func leave(erasing: Bool) throws -> Leaving {
        guard let joined = try joined() else {
            throw CraveyError(.notFound, "This library syncs with no folder: there is nothing to leave.")
        }
        if erasing {
            let devices = joined.folder.appendingPathComponent("devices")
            guard FileManager.default.fileExists(atPath: devices.path) else {
                throw CraveyError(.notFound, "The sync folder \(joined.folder.path) is not there (or has no devices/): mount it to erase this library's files from it, or leave without --erase. Nothing was changed.")
            }
            let mine = devices.appendingPathComponent(joined.device.hex)
            if FileManager.default.fileExists(atPath: mine.path) { try FileManager.default.removeItem(at: mine) }
        } else {
            _ = try? send()  // what cannot be sent now is counted below
        }
        let unsent = try store.write { tx in try SyncLog(tx.db).leave() }
        try? store.files?.remove(Self.keyFile)  // one left behind opens nothing the library still syncs
        return Leaving(folder: joined.folder, device: joined.device, erased: erasing, unsent: unsent)
    }

    /// Where sync stands: the folder, this library's device, what it has not sent yet, and each
    /// device that has written to the folder with the number of its last change file.
    package struct Status: Sendable {
        package var folder: URL
        package var device: SyncDevice
        /// Change files in the outbox, not yet in the folder.
        package var unsent: Int
        package var devices: [SyncDevice: UInt64]
        /// The name each device gave itself, for those that have.
        package var names: [SyncDevice: String]
        /// Each device's last change file merged here.
        package var merged: [SyncDevice: UInt64]
        /// The change files refused at the last merge, and why: not merged, nor any of their
        /// device's after them, until they can be.
        package var refused: [(device: SyncDevice, file: UInt64, reason: String)]
        /// What the inbox holds: files the next sync imports, files still arriving, files refused.
        package var inbox: SyncInbox.Scan
    }

    /// Where sync stands (``Status``); nil when the library has joined no folder. The folder's
    /// devices are what can be read of it now (none when it is not there: a USB stick unplugged).
    package func status() throws -> Status? {
        guard let (folder, joined) = try joinedFolder() else { return nil }
        let (unsent, merged, refused) = try store.read { db in
            let log = SyncLog(db)
            return (try log.outbox().count, try log.merged(), try log.refused())
        }
        let devices = (try? folder.devices()) ?? [:]
        return Status(folder: folder.url, device: joined.device, unsent: unsent, devices: devices,
                      names: devices.keys.reduce(into: [:]) { names, device in names[device] = folder.name(of: device) },
                      merged: merged, refused: refused, inbox: (try? inbox.scan()) ?? SyncInbox.Scan(folder: nil))
    }

    /// The folder the library syncs with and its device, as its rows say (the key not read);
    /// nil when it has joined none.
    package func joined() throws -> SyncLog.Joined? {
        try store.read { db in try SyncLog(db).joined() }
    }

    /// The folder the library syncs with, and its device; nil when it has joined none.
    package func joinedFolder() throws -> (SyncFolder, SyncLog.Joined)? {
        guard let joined = try joined() else { return nil }
        let held = store.contents(of: Self.keyFile, atMost: 64 << 10).map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard let line = held.split(separator: "\n").first(where: { $0.hasPrefix("AGE-SECRET-KEY-") }), let key = AgeIdentity(String(line)) else {
            throw CraveyError(.notFound, "The key of the sync folder \(joined.folder.path) is missing from the library (\(store.libraryURL.appendingPathComponent(Self.keyFile.name).path)): join the folder again with its passphrase.")
        }
        return (SyncFolder(url: joined.folder, key: key, id: joined.folderID), joined)
    }

    /// This machine's name (`gethostname`): a device's name until it is given another.
    static var hostName: String {
        var bytes = [CChar](repeating: 0, count: 256)
        guard gethostname(&bytes, bytes.count - 1) == 0 else { return "a machine" }
        let name = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "a machine" : name
    }

    /// Refuses a sync folder that is the library folder, is inside it or holds it: the folder
    /// is carried to other machines, and the library never is.
    package static func refuseOverlap(_ folder: URL, library: URL) throws {
        // (A folder not made yet is where its parent is: the sync folder's, and a new machine's
        // library, made when it joins.)
        let place = { (url: URL) in
            FileStorageManager.realPath(url) ?? FileStorageManager.realPath(url.deletingLastPathComponent()).map { $0 + "/" + url.lastPathComponent }
        }
        let home = place(library) ?? library.standardizedFileURL.path
        guard let resolved = place(folder) ?? (folder.standardizedFileURL.path.hasPrefix(home + "/") ? folder.standardizedFileURL.path : nil) else {
            throw CraveyError(.notSyncFolder, "\(folder.path) cannot be a sync folder: the folder it would be in is not there. Make it first.")
        }
        if resolved == home || resolved.hasPrefix(home + "/") || home.hasPrefix(resolved + "/") {
            let how = resolved == home ? "is the library folder" : resolved.hasPrefix(home + "/") ? "is inside the library folder \(library.path)" : "holds the library folder \(library.path)"
            throw CraveyError(.notSyncFolder, "\(folder.path) \(how): a sync folder is carried to other machines, and the library never is. Choose a folder of its own, outside the library. Nothing was changed.")
        }
    }
}
