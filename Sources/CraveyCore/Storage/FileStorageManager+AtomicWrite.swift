import Foundation
import SystemPackage

extension FileStorageManager {
    /// Writes `data` to `url` all at once or not at all: a private (0600) temporary file in the
    /// same folder (``create(_:filling:)``), flushed to disk, then renamed into place. A short
    /// write is followed by another for the rest; only an error from `write` (a full disk, say)
    /// fails. A failure leaves no temporary file and says what happened to `url` (`doing` names
    /// the action, "write the export to"), with the `Errno` underneath.
    ///
    /// The corresponding C functions are `open`, `write`, `fsync` and `rename`.
    package static func writeAtomically(_ data: Data, to url: URL, doing action: String,
                                        faults: StorageFaults = StorageFaults()) throws(CraveyError) {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp", isDirectory: false)
        do {
            try create(temporary) { file in
                file.writeFault = faults.write
                try data.withUnsafeBytes { try file.writeAll($0) }
                try file.sync()
            }
        } catch {
            throw writeError((error as? Errno ?? .ioError).rawValue, url, doing: action)
        }
        do throws(Errno) {
            try moveFile(temporary, to: url)
        } catch {
            try? unlinkFile(temporary)
            throw writeError(error.rawValue, url, doing: action)
        }
    }
}
