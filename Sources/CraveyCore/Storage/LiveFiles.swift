import Foundation
import SystemPackage

/// The files this process is writing in the library, each held under an exclusive `flock` from
/// its creation until it is saved or gone: any other process sees them owned
/// (``FileStorageManager/isLocked(_:)``) and leaves them alone, and the kernel drops the locks
/// when this process dies, turning them into leftovers a repair may take. Clips given up
/// (``LibraryStore/abandon(_:)``) are remembered too: nothing more is created or saved for them.
final class LiveFiles: Sendable {
    private let held = Locked<[StoredFile: Int32]>([:])
    private let abandoned = Locked<Set<RecordingID>>([])

    /// Holds `file`, just created through `descriptor`, locked. A lock that cannot be taken is
    /// an error: an unowned file would be taken for a crash's leftover. The corresponding C
    /// functions are `flock` and `fcntl`.
    func hold(_ file: StoredFile, _ descriptor: FileDescriptor) throws(Errno) {
        guard flock(descriptor.rawValue, LOCK_EX | LOCK_NB) == 0 else { throw Errno(rawValue: errno) }
        let copy = fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw Errno(rawValue: errno) }
        held.withLock { files in
            if let previous = files.updateValue(copy, forKey: file) { close(previous) }
        }
    }

    /// Lets go of `file`: saved, or gone.
    func release(_ file: StoredFile) {
        if let copy = held.withLock({ $0.removeValue(forKey: file) }) { close(copy) }
    }

    /// The lock follows a file renamed from `source` to `destination`.
    func move(_ source: StoredFile, to destination: StoredFile) {
        held.withLock { files in
            guard let copy = files.removeValue(forKey: source) else { return }
            if let previous = files.updateValue(copy, forKey: destination) { close(previous) }
        }
    }

    /// The files this process holds of clip `id`.
    func files(of id: RecordingID) -> [StoredFile] {
        let stem = id.description
        return held.withLock { $0.keys.filter { $0.name.contains(stem) } }
    }

    func abandon(_ id: RecordingID) {
        abandoned.withLock { _ = $0.insert(id) }
    }

    func isAbandoned(_ id: RecordingID) -> Bool {
        abandoned.withLock { $0.contains(id) }
    }
}
