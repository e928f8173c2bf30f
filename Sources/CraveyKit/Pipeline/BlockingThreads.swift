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

    /// Runs `job` on a thread named `name` while it runs: an idle one, or a new one.
    func run(named name: String, _ job: @escaping Job) {
        let queued: Bool = locked {
            guard state.jobs.count < state.idle else { return false }
            state.jobs.append((name, job))
            condition.signal()
            return true
        }
        if !queued {
            DedicatedThread.start(named: name) { self.serve(name: name, job) }.detach()
        }
    }

    /// A thread's life: runs its first job, then each job it is handed, until it has been idle
    /// for `idleTimeout`.
    private func serve(name: String, _ first: @escaping Job) {
        var job = (name: name, run: first)
        while true {
            Thread.current.name = job.name
            let deliver = job.run()
            Thread.current.name = Self.idleName
            locked { state.idle += 1 }
            deliver()
            guard let next = locked({ nextJob() }) else { return }
            job = next
        }
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
