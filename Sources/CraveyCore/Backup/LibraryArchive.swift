import Foundation

/// What leaves the library folder and comes back: backups and their restore, exports of its
/// metadata, and any file a person asks for outside the folder (a thumbnail, a shared clip, a
/// waveform picture), written so that nothing inside it is ever touched. A capability reached
/// from the door (``RecordingLibrary/archive``); CraveyKit adds the restore that decodes each
/// clip's media (`LibraryArchive+Restore.swift`).
package struct LibraryArchive: Sendable {
    package let library: RecordingLibrary

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
        /// How many of the backup's reminders the library did not have and now has (their
        /// timers are made by `cravey remind resume`).
        package var reminders: Int = 0
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
        let written = try Backup.write(library, to: url, replacing: replacing, encryptingWith: passphrase.map { Array($0.utf8) },
                                       now: Date(), progress: progress)
        return BackupSummary(clips: written.clips, bytes: written.bytes, leftOut: written.leftOut)
    }

    /// Checks a backup as CraveyKit's ``restore(from:passphrase:progress:)`` does first, changing nothing:
    /// for a library folder that is not there yet, so that a backup that cannot be restored makes
    /// none. `progress` gets its first half.
    package static func checkBackup(at url: URL, for library: URL, passphrase: (() throws -> String)?,
                                    progress: ((Double) -> Void)? = nil) throws -> CheckedBackup {
        try Backup.check(url, outside: library, passphrase: passphrase.map { ask in { Array(try ask().utf8) } }, progress: progress)
    }

    /// Restores a backup ``checkBackup(at:for:passphrase:progress:)`` checked, each clip's media
    /// looked at by `checking` before any is saved; `progress` gets the second half.
    package func restore(_ checked: CheckedBackup, checking: RestoredMediaCheck?, progress: ((Double) -> Void)? = nil) throws -> RestoreSummary {
        let result = try Backup.restore(checked, into: library.store, checking: checking, progress: progress)
        return RestoreSummary(restored: result.restored, alreadyThere: result.alreadyThere, blocked: result.blocked, reminders: result.reminders)
    }

    /// The formats ``export(_:raw:tagged:exportDate:)`` writes the library's metadata in.
    package enum ExportFormat: String, Sendable, CaseIterable {
        /// RFC 4180: CRLF line ends; fields with commas, quotes or line breaks are quoted.
        case csv
        /// `{"exportDate": ..., "recordings": [...], "version": 1}`, each recording as `--json` prints it.
        case json
    }

    /// The library's metadata (not the media) as bytes, newest recording first.
    ///
    /// CSV is for spreadsheets: a cell starting with `=`, `+`, `-`, `@`, tab or CR gets a leading
    /// apostrophe, so a title such as `=HYPERLINK(...)` stays text (OWASP's advice on CSV
    /// injection). `raw` keeps every cell verbatim, for scripts. JSON is always verbatim.
    package func export(_ format: ExportFormat, raw: Bool = false, tagged tag: String? = nil, exportDate: Date = Date()) throws -> Data {
        let recordings = try library.recordings(sortedBy: .recent, tagged: tag)
        switch format {
        case .json:
            return RecordingJSON.encodeExport(recordings, exportDate: exportDate, version: 1)
        case .csv:
            return Data(RecordingCSV.text(recordings, raw: raw).utf8)
        }
    }

    /// Writes the export to a new file at `url` (mode 0600) in one step. Refused
    /// (`.invalidInput`): any place inside the library folder (its database, its clips);
    /// something already at `url` unless `replacing`; and, even then, anything there that is not
    /// a regular file (a device, a folder, a link).
    package func export(_ format: ExportFormat, raw: Bool = false, tagged tag: String? = nil, to url: URL,
                        replacing: Bool = false) throws {
        let data = try export(format, raw: raw, tagged: tag)
        try writeOutside(to: url, doing: "write the export to", replacing: replacing) { try $0.write(data) }
    }

    /// Writes a file a person asked for outside the library (mode 0600, all at once or not at
    /// all): refused (`.invalidInput`) inside the library folder, where something is already
    /// unless `replacing`, and where anything but a regular file is even then.
    package func writeOutside(to url: URL, doing action: String, replacing: Bool, fill: (MediaFile) throws -> Void) throws {
        if let files = library.store.files {
            try files.writeOutside(to: url, doing: action, replacing: replacing, fill: fill)
        } else {
            try FileStorageManager.writeAtomically(to: url, doing: action, replacing: replacing, fill: fill)
        }
    }
}
