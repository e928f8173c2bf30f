import Foundation
import SystemPackage

extension FileStorageManager {
    /// Writes `data` to `url` all at once or not at all: a private (0600) temporary file in the
    /// same folder, flushed to disk, then renamed into place. A short write is followed by
    /// another for the rest; only an error from `write` (a full disk, say) fails. A failure
    /// leaves no temporary file and says what happened to `url` (`doing` names the action,
    /// "write the export to"), with the `Errno` underneath.
    ///
    /// The corresponding C functions are `open`, `write`, `fsync` and `rename`.
    package static func writeAtomically(_ data: Data, to url: URL, doing action: String,
                                        faults: StorageFaults = StorageFaults()) throws(CraveyError) {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp", isDirectory: false)
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                FilePath(temporary.path), .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
                permissions: [.ownerRead, .ownerWrite])
        } catch {
            throw writeError((error as? Errno ?? .ioError).rawValue, url, doing: action)
        }
        do {
            try descriptor.closeAfter {
                try data.withUnsafeBytes { bytes in
                    var rest = bytes[...]
                    while !rest.isEmpty {
                        let chunk = UnsafeRawBufferPointer(rebasing: rest)
                        rest = rest.dropFirst(try faults.write?(descriptor, chunk) ?? descriptor.write(chunk))
                    }
                }
                guard fsync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
            }
            guard rename(temporary.path, url.path) == 0 else { throw Errno(rawValue: errno) }
        } catch {
            unlink(temporary.path)
            throw writeError((error as? Errno ?? .ioError).rawValue, url, doing: action)
        }
    }
}
