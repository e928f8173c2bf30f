import Foundation
import GRDB

/// The blobs the folder was told of for each clip: the media, thumbnail and waveform of every
/// media it had (made, then each trim or clean-up), whichever device wrote them. Once the clip
/// is deleted, the device that wrote a blob takes it out of the folder (``LibrarySync``, when
/// its delete has been sent or merged): a deleted clip's sound leaves every machine's folder,
/// not only its rows. Kept in the library's database (`syncBlob`), ids only.
struct SyncBlobs {
    let db: Database

    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE syncBlob (device TEXT NOT NULL, id TEXT NOT NULL, clip TEXT NOT NULL,
                                   PRIMARY KEY (device, id)) WITHOUT ROWID;
            CREATE INDEX syncBlob_on_clip ON syncBlob(clip);
            """)
        // What the folder was told before: each clip's last media (earlier ones are not known).
        for row in try Row.fetchAll(db, sql: "SELECT clip, media FROM syncMedia") {
            guard let media = try? SyncChange.decoder.decode(SyncChange.Media.self, from: row["media"] as Data) else { continue }
            try SyncBlobs(db: db).note(media, of: row["clip"])
        }
    }

    /// Notes the blobs of `media`, told of clip `subject`.
    func note(_ media: SyncChange.Media, of subject: String) throws {
        for blob in [media.file, media.thumbnail, media.waveform].compactMap({ $0 }) {
            try db.execute(sql: "INSERT OR IGNORE INTO syncBlob (device, id, clip) VALUES (?, ?, ?)",
                           arguments: [blob.device.hex, blob.id.uuidString, subject])
        }
    }

    /// The blobs of deleted clips (a tombstone's): each with its device, whose alone it is to
    /// take out of the folder.
    func ofDeletedClips() throws -> [(device: SyncDevice, id: UUID)] {
        try Row.fetchAll(db, sql: "SELECT device, id FROM syncBlob WHERE clip IN (SELECT clip FROM syncTombstone)").compactMap { row in
            guard let device = SyncDevice(hex: row["device"]), let id = UUID(uuidString: row["id"]) else { return nil }
            return (device, id)
        }
    }

    /// Forgets `blobs` (taken out of the folder, or another device's to take out).
    func forget(_ blobs: [(device: SyncDevice, id: UUID)]) throws {
        for blob in blobs {
            try db.execute(sql: "DELETE FROM syncBlob WHERE device = ? AND id = ?", arguments: [blob.device.hex, blob.id.uuidString])
        }
    }
}
