import Foundation

extension FileStorageManager {
    /// Writes `data` to `url` all at once or not at all: a private (0600) temporary file in the
    /// same folder, flushed to disk, then renamed into place. A failure leaves no temporary file
    /// and says what happened to `url` (`doing` names the action, "write the export to").
    package static func writeAtomically(_ data: Data, to url: URL, doing action: String) throws(CraveyError) {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp", isDirectory: false)
        let descriptor = open(temporary.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw writeError(errno, url, doing: action) }
        var failure: Int32 = 0
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written != data.count { failure = written < 0 ? errno : ENOSPC }
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0 && rename(temporary.path, url.path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary.path)
            throw writeError(failure, url, doing: action)
        }
    }
}
