import Foundation

extension LibraryArchive {
    /// Adds to the library every clip of the backup at `url` that it does not have (by id),
    /// with its words, date, plays, loudness and thumbnail; clips it has are left as they are.
    /// A clip deleted since the backup was made comes back: that is what a restore is for.
    ///
    /// All or nothing. The whole file is checked first (every byte against its manifest, every
    /// value of every clip against what a clip can have); a backup that is damaged, cut short,
    /// altered, not cravey's, or holds a value no clip has, restores nothing
    /// (`.damagedArchive`). Then each clip to add is written and its media decoded and measured
    /// against its record: media that does not decode to its end (a damaged packet, a file that
    /// stops early, fewer seconds decoded than the file says), or not as long as its record says,
    /// restores nothing either. Then they are all saved in one transaction, durably as a
    /// recording is. `.cannotWrite` when the disk has no room for them (nothing is restored),
    /// `.newerLibrary` for a backup a newer cravey wrote.
    ///
    /// An encrypted backup (the age format, from ``backup(to:replacing:encryptingWith:progress:)`` or `age -p`) gets
    /// its passphrase from `passphrase`, called once and only then; a wrong one, or a single
    /// byte altered anywhere, restores nothing (`.damagedArchive`).
    package func restore(from url: URL, passphrase: (() throws -> String)? = nil,
                        progress: ((Double) -> Void)? = nil) throws -> RestoreSummary {
        try restore(try Self.checkBackup(at: url, for: library.url, passphrase: passphrase, progress: progress), progress: progress)
    }

    /// Restores a backup ``checkBackup(at:for:passphrase:progress:)`` checked, decoding each
    /// clip's media before any is saved.
    package func restore(_ checked: CheckedBackup, progress: ((Double) -> Void)? = nil) throws -> RestoreSummary {
        let store = library.store
        return try restore(checked, checking: { file, recording in
            // One reading: to the end, and the length the file says, which its record must say too.
            let decoding: MediaProbe.Decoding
            do {
                decoding = try MediaProbe.decoding(of: store.media(file))
            } catch let error as CraveyError {
                throw CraveyError(.damagedArchive, "The backup's clip \"\(recording.title)\" (\(recording.id.description)) holds media that does not decode: it does not open as media (\(error.message)). Nothing was restored.")
            }
            if let damage = decoding.problem {
                throw CraveyError(.damagedArchive, "The backup's clip \"\(recording.title)\" (\(recording.id.description)) holds media that does not decode: it \(damage). Nothing was restored.")
            }
            let probed = decoding.declared
            guard abs(probed - recording.duration) <= max(1, probed * 0.01) else {
                throw CraveyError(.damagedArchive, "The backup's clip \"\(recording.title)\" (\(recording.id.description)): duration: its record says \(recording.duration) s, its media is \(probed) s long. Nothing was restored.")
            }
        }, progress: progress)
    }
}
