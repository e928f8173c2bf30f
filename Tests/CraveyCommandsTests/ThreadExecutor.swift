import Foundation

/// A task executor with a thread of its own: a task that prefers it (as `run` makes it) runs its
/// code there, off Swift's cooperative pool. A command run in process blocks as it does in its
/// own process (SQLite, a file, a question), and must not hold one of the pool's few threads, on
/// which the other tests run.
///
/// Only the task's own code and its child tasks run here: an unstructured `Task {}` it starts, or
/// an actor it calls, runs where it would anyway (SE-0417).
// @unchecked Sendable: `jobs` and `ended` are only read and written with `condition` locked.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    /// Set once the task has left: the thread ends when no job is left.
    private var ended = false

    /// The name of an executor's thread, as `/proc/<pid>/task/*/comm` shows it.
    static let threadName = "cravey.command"

    /// Runs `body` with a thread of its own, which ends with it.
    static func run<T>(_ body: () async -> T) async -> T {
        let executor = ThreadExecutor()
        Thread {
            // Named from the thread itself: a new thread has its creator's name until then. By
            // the system's own file, as the test reads it: Foundation's `Thread.current.name`
            // once read back the name the thread had from its creator (a pool thread's,
            // "oot.default-qos") in a loaded run (ci54).
            try? threadName.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
            executor.serve()
        }.start()
        defer { executor.end() }
        return await withTaskExecutorPreference(executor, operation: body)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let late: Bool = locked {
            if !ended { jobs.append(job) }
            condition.signal()
            return ended
        }
        // A job after the end (none is expected) still runs, on a thread of its own.
        if late { Thread { job.runSynchronously(on: self.asUnownedTaskExecutor()) }.start() }
    }

    /// The thread's life: each job in turn, until the task has left and no job is left.
    private func serve() {
        while let job = locked({ () -> UnownedJob? in
            while jobs.isEmpty && !ended { condition.wait() }
            return jobs.isEmpty ? nil : jobs.removeFirst()
        }) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    private func end() {
        locked {
            ended = true
            condition.signal()
        }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }
}
