import Foundation
import SystemPackage

/// A backup opened and checked whole (``Backup/check(_:outside:passphrase:progress:)``), ready
/// for ``Backup/restore(_:into:progress:)`` to read a second time: so that a library that is not
/// there yet is made only for a backup that restores, without reading it a third time or asking
/// for its passphrase again.
package final class CheckedBackup {
    let url: URL
    let archive: FileDescriptor
    /// The file as it was checked, which a plain archive must still be when its clips are saved.
    let stamp: Backup.Stamp
    let clips: [RecordingID: Backup.Clip]
    /// The library's reminders it holds.
    let reminders: [Reminder]
    /// The person's own words it carries (``LibraryVocabulary``).
    let words: [VocabularyWord]
    /// An encrypted archive's file key, to read it again without the passphrase.
    let fileKey: [UInt8]?

    init(url: URL, archive: FileDescriptor, stamp: Backup.Stamp, clips: [RecordingID: Backup.Clip], reminders: [Reminder],
         words: [VocabularyWord], fileKey: [UInt8]?) {
        (self.url, self.archive, self.stamp, self.clips, self.reminders, self.words, self.fileKey) =
            (url, archive, stamp, clips, reminders, words, fileKey)
    }

    deinit { try? archive.close() }
}

extension Backup {
    /// What identifies a file's contents without reading them: any write changes its change time.
    struct Stamp: Equatable {
        var size: Int64
        var changed: timespec
        var inode: UInt64

        init(_ descriptor: FileDescriptor) throws {
            var info = stat()
            guard fstat(descriptor.rawValue, &info) == 0 else { throw Errno(rawValue: errno) }
            (size, changed, inode) = (Int64(info.st_size), info.st_ctim, UInt64(info.st_ino))
        }

        static func == (left: Stamp, right: Stamp) -> Bool {
            left.size == right.size && left.inode == right.inode
                && left.changed.tv_sec == right.changed.tv_sec && left.changed.tv_nsec == right.changed.tv_nsec
        }
    }
}
