@testable import CraveyCore
import CraveyTestSupport
import Foundation
import GRDB
import SystemPackage
import Testing

/// The writers' lock held by another process (flock(1)): a change of this one waits for it.
extension StoreTests {
    @Test("a change waits for the writers' lock another process holds, and runs once it is let go")
    func lockHeldElsewhere() async throws {
        // Given another process holding the library's lock (flock(1)) until told to let go
        let (library, recording) = try libraryWithClip()
        let released = folder.appendingPathComponent("released-\(UUID().uuidString)")
        let holder = TestProcess()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [library.url.appendingPathComponent(WritersLock.fileName).path, "-c", "echo held; read line; touch '\(released.path)'"]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        #expect(try await offPool { output.fileHandleForReading.availableData }.starts(with: Data("held".utf8)))

        // When this process edits the clip on a thread of its own
        let writer = Locked<(thread: pid_t?, sawRelease: Bool?)>((nil, nil))
        let edited = JoinableThread {
            // This thread's id, as /proc names it ("PID/task/TID").
            let thread = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?.split(separator: "/").last
            writer.withLock { $0.thread = thread.flatMap { pid_t($0) } }
            _ = try? library.store.write { tx in
                writer.withLock { $0.sawRelease = FileManager.default.fileExists(atPath: released.path) }
                try tx.repository.updateWords(of: recording.id, title: "Waited", notes: nil, purpose: nil)
            }
        }

        // Then it waits in flock(2) (syscall 73, read from /proc), and runs only after the other
        // process let go
        // (polled: being blocked is no event)
        _ = try await poll(within: 10, every: 0.005) {
            guard let thread = writer.withLock({ $0.thread }),
                  let syscall = try? String(contentsOfFile: "/proc/self/task/\(thread)/syscall", encoding: .utf8) else { return false }
            return syscall.hasPrefix("73 ")
        }
        let waited = writer.withLock { $0.sawRelease == nil }
        input.fileHandleForWriting.write(Data("go\n".utf8))
        await exit(of: holder)
        try await offPool { edited.join() }
        #expect(waited, "the change ran while the other process held the lock")
        #expect(writer.withLock { $0.sawRelease } == true)
        #expect(try library.recording(recording.id)?.title == "Waited")
    }
}

/// A thread whose end can be waited for.
final class JoinableThread: Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        Thread { [done] in
            body()
            done.signal()
        }.start()
    }

    func join() { done.wait() }
}
