import Foundation

/// Threads for blocking work (``onDedicatedThread(named:_:)``): a job runs at once on an idle
/// thread, or on a new one when none is idle; a thread idle for ``idleTimeout`` seconds ends.
///
/// Why it cannot starve: the work here blocks for as long as it likes (an import decoding a file,
/// the doctor walking the library, a SQLite write waiting out another process's transaction), so
/// no job ever waits for another to finish. A job is queued only for a thread that is idle and
/// about to take it (``State/jobs`` never holds more than ``State/idle``); when none is, the job
/// gets a thread of its own. A fixed-size pool (NIOThreadPool's `numberOfThreads`) would queue it
/// behind the blocked ones instead. The number of threads is bounded by the callers: each job is
/// one awaiting task, and in this library a command awaits one or two at a time; a burst leaves
/// threads that end once idle.
///
/// Modelled on swift-nio's `NIOThreadPool`: one state behind one condition lock, threads that
/// wait on it for work; unlike it, the threads are detached and never joined (nothing waits for
/// them to end; a job's caller waits for its result, which the job delivers itself).
// @unchecked Sendable: `state` is only read and written with `condition` locked; `idleTimeout`
// is a constant.
final class BlockingThreads: @unchecked Sendable {
    /// The process's one pool.
    static let shared = BlockingThreads(idleTimeout: 10)

    /// A job: runs its work and returns what delivers the result, which runs once the thread
    /// counts as idle, so a caller that submits its next job at once finds this thread free.
    typealias Job = @Sendable () -> (@Sendable () -> Void)

    /// The name an idle thread has in `/proc/<pid>/task/*/comm`.
    static let idleName = "cravey.idle"

    private struct State {
        /// Jobs handed to idle threads, oldest first.
        var jobs: [(name: String, run: Job)] = []
        /// Threads waiting for a job (those about to take the ones in `jobs` included).
        var idle = 0
    }

    private let idleTimeout: TimeInterval
    private let condition = NSCondition()
    private var state = State()

    init(idleTimeout: TimeInterval) {
        self.idleTimeout = idleTimeout
    }

    /// Runs `job` on a thread named `name` while it runs: an idle one, or a new one (counted
    /// idle from here, as it is about to take a job). A job reaches its thread through `state`
    /// only, never through the thread's own closure, so a thread holds nothing of a job once it
    /// has run it: what the job captured (a library and its SQLite connection) goes with its
    /// result, not when the idle thread ends up to ``idleTimeout`` later.
    func run(named name: String, _ job: @escaping Job) {
        let newThread: Bool = locked {
            state.jobs.append((name, job))
            if state.jobs.count <= state.idle {
                condition.signal()
                return false
            }
            state.idle += 1
            return true
        }
        if newThread {
            DedicatedThread.start(named: name) { self.serve() }.detach()
        }
    }

    /// A thread's life: runs each job it is handed until it has been idle for `idleTimeout`.
    private func serve() {
        while let job = locked({ nextJob() }) {
            work(job)
        }
    }

    /// Runs `job` on this thread, named for it, and delivers its result once the thread counts
    /// as idle, so a caller that submits its next job at once finds this thread free. The job
    /// and its result are released when this returns.
    private func work(_ job: (name: String, run: Job)) {
        Thread.current.name = job.name
        let deliver = job.run()
        Thread.current.name = Self.idleName
        locked { state.idle += 1 }
        deliver()
    }

    /// Waits for a job, as one of the idle threads; nil after `idleTimeout` without one.
    private func nextJob() -> (name: String, run: Job)? {
        defer { state.idle -= 1 }
        let deadline = Date(timeIntervalSinceNow: idleTimeout)
        while state.jobs.isEmpty {
            // A job queued as the wait times out is still taken: the submitter counted on this thread.
            if !condition.wait(until: deadline), state.jobs.isEmpty { return nil }
        }
        return state.jobs.removeFirst()
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }
}
