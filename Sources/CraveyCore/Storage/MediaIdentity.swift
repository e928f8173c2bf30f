import Foundation
import SystemPackage

/// Which file a clip's media is: its device, inode, size and change time. A trim or a kept
/// clean-up puts a new file in the clip's place, so a change made from, or asked about, one
/// file is refused once the clip's media is another (another process changed it meanwhile).
package struct MediaIdentity: Equatable, Sendable {
    private let device: UInt64
    private let inode: UInt64
    private let size: Int64
    private let changed: Int64

    /// The identity of the file open at `descriptor`; nil when it cannot be told. The
    /// corresponding C function is `fstat`.
    package init?(of descriptor: FileDescriptor) {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }

    /// The identity of `file` in `store`, looked at without following a link; nil when nothing
    /// is there.
    package init?(of file: StoredFile, in store: LibraryStore) {
        guard let info = store.files?.information(about: file) else { return nil }
        self.init(info)
    }
}
