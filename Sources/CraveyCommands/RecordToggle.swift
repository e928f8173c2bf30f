import CraveyCore
import Foundation

/// `cravey record --toggle`: one key, from a desktop shortcut, that starts a recording when none
/// is running and stops and saves the one that is.
///
/// The library's `record.toggle` file says which: the process recording holds an exclusive
/// `flock` on it from before it starts until it has saved (the kernel lets go when it dies), and
/// writes its process id in it. A toggle that gets the lock records; one that finds it held sends
/// the recording process SIGINT (Ctrl-C: stop and save) and waits until the lock is let go, the
/// clip saved. So two toggles never start two recordings, and a stop that comes while the
/// recording is still starting stops it as soon as it has started.
///
/// A stop needs neither FFmpeg nor PulseAudio: `cravey` itself carries it out
/// (``RecordOptions/run()``), and hands a start to `cravey-media`, which takes the toggle again
/// (another toggle may have taken it meanwhile: then it stops that one).
package struct RecordToggle: Sendable {
    /// The file's name in the library folder.
    static let fileName = "record.toggle"

    /// The library's folder.
    let folder: URL
    private let descriptor: Int32

    /// Opens (or makes, mode 0600) the toggle file in the library `folder`: a regular file of
    /// this user's, never through a link.
    package init(folder: URL) throws {
        self.folder = folder
        let path = folder.appendingPathComponent(Self.fileName).path
        descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        var info = stat()
        guard descriptor >= 0 else { throw Self.refusal(path, opening: errno) }
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() else {
            close(descriptor)
            throw CraveyError(.cannotWrite, "Cannot use \(path) to start or stop a recording: it is not a regular file of yours. Remove it; cravey makes it again.")
        }
    }

    /// Why the toggle file at `path` could not be opened (or made), by `errno`, and the fix: a
    /// library that cannot be written is made writable (there is nothing to remove), a link or
    /// what is no file removed, a full disk freed.
    static func refusal(_ path: String, opening code: Int32) -> CraveyError {
        let reason = String(cString: strerror(code))
        let fix = switch code {
        case EROFS, EACCES, EPERM: "the library cannot be written here. Make its folder writable (or name one that is with --library) and try again."
        case ENOSPC, EDQUOT: "the disk is full. Free some space, then try again."
        case ELOOP, EISDIR, ENXIO, ETXTBSY: "it is not a regular file. Remove it; cravey makes it again."
        default: "look at the library's folder, then try again."
        }
        return CraveyError(.cannotWrite, "Cannot use \(path) to start or stop a recording (\(reason)): \(fix)")
    }

    /// Takes the toggle for this process, when no other process holds it; then writes this
    /// process's id in it, for the next toggle to stop it. An id that cannot be written (a full
    /// disk) is `.cannotWrite` (73): no toggle could stop the recording.
    package func claim() throws -> Bool {
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        let text = Array("\(getpid())\n".utf8)
        let written = ftruncate(descriptor, 0) == 0 ? text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } : -1
        guard written == text.count else {
            let path = folder.appendingPathComponent(Self.fileName).path
            throw CraveyError(.cannotWrite, "Cannot write this recording's process id to \(path) (\(String(cString: strerror(errno)))): no other toggle could stop it. Free some space, then try again.")
        }
        return true
    }

    /// Lets the toggle go, the clip saved: the next toggle records again, and the one that
    /// stopped this recording returns, while this process goes on to hear its words.
    package func release() {
        flock(descriptor, LOCK_UN)
    }

    /// Whether a recording holds the toggle of the library `folder` now: its file is there (a
    /// regular file of this user's, not a link; never made here) and a shared lock on it cannot
    /// be had. Nothing is locked or written.
    package static func isHeld(in folder: URL) -> Bool {
        let descriptor = open(folder.appendingPathComponent(fileName).path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() else { return false }
        return flock(descriptor, LOCK_SH | LOCK_NB) != 0
    }

    /// Stops the process recording: SIGINT to the id it wrote (once it has written it, within
    /// two seconds of taking the toggle), then waits until it has saved and let go, looking
    /// every 5 ms. Throws `.busy` when it did not let go within `patience` seconds. Blocking: off
    /// the cooperative pool.
    package func stopOther(patience: Double = 120) throws {
        let deadline = ContinuousClock.now + .seconds(patience)
        var signalled = false
        while flock(descriptor, LOCK_SH | LOCK_NB) != 0 {
            if !signalled, let pid = Self.recorder(in: descriptor) {
                signalled = kill(pid, SIGINT) == 0 || errno == ESRCH
            }
            guard ContinuousClock.now < deadline else {
                throw CraveyError(.busy, "The recording another `cravey record --toggle` runs did not stop within \(Int(patience)) s. Try again, or stop it with Ctrl-C where it runs.")
            }
            usleep(5_000)
        }
    }

    /// The id of the process the file names, when it is a `cravey-media` recording.
    private static func recorder(in descriptor: Int32) -> pid_t? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &bytes, bytes.count, 0)
        guard count > 0, let pid = pid_t(String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
              pid > 0, let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
              String(decoding: command, as: UTF8.self).split(separator: "\0").contains("--toggle") else { return nil }
        return pid
    }
}
