import Foundation

extension RecordingLibrary {
    /// What ``backup(to:replacing:progress:)`` wrote.
    package struct BackupSummary: Sendable, Codable {
        /// The clips in the backup.
        package var clips: Int
        /// The size of the backup file.
        package var bytes: Int64
        /// Clips whose media could not be read (deleted while the backup was written, or missing:
        /// `doctor` says which), and are not in it.
        package var leftOut: [Recording]
    }

    /// What ``restore(from:progress:)`` did.
    package struct RestoreSummary: Sendable, Codable {
        /// The clips added to the library, each with its words, date, plays and thumbnail.
        package var restored: [Recording]
        /// How many clips of the backup the library already had (by id); they are left as they are.
        package var alreadyThere: Int
        /// Clips whose place in `Recordings/` a file without a library entry holds: a repair
        /// registers that file (and then the clip is there), or moves it aside.
        package var blocked: [Recording]
    }

    /// Writes every clip (media, thumbnail, words, date, plays, loudness) to one new file at
    /// `url`, mode 0600, in one step: a failure leaves nothing there. It is a tar archive (see
    /// the manual), with the SHA-256 of each file. Recording, playing and deleting may go on
    /// meanwhile: the backup is the library as it was when it began, less any clip deleted
    /// before its media was read (``BackupSummary/leftOut``).
    ///
    /// With a `passphrase`, the file is that tar encrypted in the age format (scrypt), which
    /// `age -d` opens: scrypt's second (and 256 MiB) to derive its key runs while the
    /// clips are written.
    ///
    /// `progress` gets the fraction done, from 0 to 1. Refused (`.invalidInput`) as an export's
    /// place is: inside the library folder, or something already there unless `replacing` (and
    /// even then, anything but a regular file).
    package func backup(to url: URL, replacing: Bool = false, encryptingWith passphrase: String? = nil,
                       progress: ((Double) -> Void)? = nil) throws -> BackupSummary {
        let written = try Backup.write(self, to: url, replacing: replacing, encryptingWith: passphrase.map { Array($0.utf8) },
                                       now: Date(), progress: progress)
        return BackupSummary(clips: written.clips, bytes: written.bytes, leftOut: written.leftOut)
    }

    /// Checks a backup as CraveyKit's `restore(from:passphrase:progress:)` does first, changing nothing:
    /// for a library folder that is not there yet, so that a backup that cannot be restored makes
    /// none. `progress` gets its first half.
    package static func checkBackup(at url: URL, for library: URL, passphrase: (() throws -> String)?,
                                    progress: ((Double) -> Void)? = nil) throws -> CheckedBackup {
        try Backup.check(url, outside: library, passphrase: passphrase.map { ask in { Array(try ask().utf8) } }, progress: progress)
    }

    /// Restores a backup ``checkBackup(at:for:passphrase:progress:)`` checked, each clip's media
    /// looked at by `checking` before any is saved; `progress` gets the second half.
    package func restore(_ checked: CheckedBackup, checking: RestoredMediaCheck?, progress: ((Double) -> Void)? = nil) throws -> RestoreSummary {
        let result = try Backup.restore(checked, into: store, checking: checking, progress: progress)
        return RestoreSummary(restored: result.restored, alreadyThere: result.alreadyThere, blocked: result.blocked)
    }
}
