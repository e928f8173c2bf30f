import Foundation

extension RecordingLibrary {
    /// What ``backup(to:replacing:progress:)`` wrote.
    public struct BackupSummary: Sendable, Codable {
        /// The clips in the backup.
        public var clips: Int
        /// The size of the backup file.
        public var bytes: Int64
        /// Clips whose media could not be read (deleted while the backup was written, or missing:
        /// `doctor` says which), and are not in it.
        public var leftOut: [Recording]
    }

    /// What ``restore(from:progress:)`` did.
    public struct RestoreSummary: Sendable, Codable {
        /// The clips added to the library, each with its words, date, plays and thumbnail.
        public var restored: [Recording]
        /// How many clips of the backup the library already had (by id); they are left as they are.
        public var alreadyThere: Int
        /// Clips whose place in `Recordings/` a file without a library entry holds: a repair
        /// registers that file (and then the clip is there), or moves it aside.
        public var blocked: [Recording]
    }

    /// Writes every clip (media, thumbnail, words, date, plays, loudness) to one new file at
    /// `url`, mode 0600, in one step: a failure leaves nothing there. It is a tar archive (see
    /// the manual), with the SHA-256 of each file. Recording, playing and deleting may go on
    /// meanwhile: the backup is the library as it was when it began, less any clip deleted
    /// before its media was read (``BackupSummary/leftOut``).
    ///
    /// With a `passphrase`, the file is that tar encrypted in the age format (scrypt), which
    /// `age -d` opens: scrypt's half a second (and 256 MiB) to derive its key runs while the
    /// clips are written.
    ///
    /// `progress` gets the fraction done, from 0 to 1. Refused (`.invalidInput`) as an export's
    /// place is: inside the library folder, or something already there unless `replacing` (and
    /// even then, anything but a regular file).
    public func backup(to url: URL, replacing: Bool = false, encryptingWith passphrase: String? = nil,
                       progress: ((Double) -> Void)? = nil) throws -> BackupSummary {
        let written = try Backup.write(storage, to: url, replacing: replacing, encryptingWith: passphrase.map { Array($0.utf8) },
                                       now: Date(), progress: progress)
        return BackupSummary(clips: written.clips, bytes: written.bytes, leftOut: written.leftOut)
    }

    /// Adds to the library every clip of the backup at `url` that it does not have (by id),
    /// with its words, date, plays, loudness and thumbnail; clips it has are left as they are.
    /// A clip deleted since the backup was made comes back: that is what a restore is for.
    ///
    /// The whole file is checked first (every byte against its manifest); a backup that is
    /// damaged, cut short, altered or not cravey's restores nothing (`.damagedArchive`). Then
    /// each clip is saved as an import is: durably, with its row, under the writers' lock.
    /// `.cannotWrite` when the disk has no room for them (nothing is restored), `.newerLibrary`
    /// for a backup a newer cravey wrote.
    ///
    /// An encrypted backup (the age format, from `backup(to:encryptingWith:)` or `age -p`) gets
    /// its passphrase from `passphrase`, called once and only then; a wrong one, or a single
    /// byte altered anywhere, restores nothing (`.damagedArchive`).
    public func restore(from url: URL, passphrase: (() throws -> String)? = nil,
                        progress: ((Double) -> Void)? = nil) throws -> RestoreSummary {
        try restore(try Self.checkBackup(at: url, for: self.url, passphrase: passphrase, progress: progress), progress: progress)
    }

    /// Checks a backup as ``restore(from:passphrase:progress:)`` does first, changing nothing:
    /// for a library folder that is not there yet, so that a backup that cannot be restored makes
    /// none. `progress` gets its first half.
    package static func checkBackup(at url: URL, for library: URL, passphrase: (() throws -> String)?,
                                    progress: ((Double) -> Void)? = nil) throws -> CheckedBackup {
        try Backup.check(url, outside: library, passphrase: passphrase.map { ask in { Array(try ask().utf8) } }, progress: progress)
    }

    /// Restores a backup ``checkBackup(at:for:passphrase:progress:)`` checked; `progress` gets the second half.
    package func restore(_ checked: CheckedBackup, progress: ((Double) -> Void)? = nil) throws -> RestoreSummary {
        let result = try Backup.restore(checked, into: storage, progress: progress)
        return RestoreSummary(restored: result.restored, alreadyThere: result.alreadyThere, blocked: result.blocked)
    }
}
