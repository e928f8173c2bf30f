import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// ``onDedicatedThread(named:_:)``: blocking work off the cooperative pool, on threads that are
/// reused and never make one call wait for another.
@Suite("Blocking work on the shared threads")
struct BlockingThreadsTests {
    @Test("jobs one after another run on one thread")
    func reusesThreads() async throws {
        // Given a pool of its own whose threads do not end idle while the test runs (with 60 s, CI's
        // parallel run once saw 2 threads: a test's task on a starved cooperative pool can resume
        // long after its job, and a thread idle that long ends, as it should)
        let pool = BlockingThreads(idleTimeout: 3_600)

        // When 20 jobs run one after another
        var threads = Set<String>()
        var longestGap = Duration.zero
        for _ in 0..<20 {
            let start = ContinuousClock.now
            // pthread_self, not /proc/thread-self: a thread's identity, read without the file system
            threads.insert(try await Self.run(on: pool, named: "bt-reuse") { String(UInt(pthread_self())) })
            longestGap = max(longestGap, ContinuousClock.now - start)
        }

        // Then they all ran on one thread
        #expect(threads.count == 1, "\(threads.count) threads for 20 jobs in a row (longest job and resumption: \(longestGap))")
    }

    @Test("a thread idle for the timeout ends")
    func idleThreadsEnd() async throws {
        // Given a pool whose threads end after 0.2 s idle, and a job it ran
        let pool = BlockingThreads(idleTimeout: 0.2)
        let thread = try await Self.run(on: pool, named: "bt-idle") { Self.currentThread() }

        // Then that job's thread ends
        #expect(try await poll(within: 120, every: 0.05) { !FileManager.default.fileExists(atPath: thread) },
                "the idle thread did not end")
    }

    @Test("what a job captured is released once its result is delivered, not kept by its idle thread")
    func jobReleased() async throws {
        // Given a pool whose threads stay idle for an hour, and a job holding an object
        let pool = BlockingThreads(idleTimeout: 3_600)
        let weak = WeakBox()
        do {
            let held = Held()
            weak.object = held
            #expect(try await Self.run(on: pool, named: "bt-release") { held.value } == 7)
        }
        // Then, the thread idle, nothing of the job keeps the object (a first job and a reused
        // thread's alike)
        #expect(try await poll(within: 10, every: 0.01) { weak.object == nil }, "the idle thread kept the job's object")
        do {
            let held = Held()
            weak.object = held
            #expect(try await Self.run(on: pool, named: "bt-release") { held.value } == 7)
        }
        #expect(try await poll(within: 10, every: 0.01) { weak.object == nil }, "the reused thread kept the job's object")
    }

    /// An object a job captures.
    final class Held: Sendable {
        let value = 7
    }

    /// A weak reference a test reads while a thread may release its object.
    final class WeakBox: @unchecked Sendable {
        private let lock = NSLock()
        private weak var stored: Held?
        var object: Held? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    @Test("onDedicatedThread runs off the cooperative pool, on a thread named for the call while it runs")
    func namesThreads() async throws {
        for index in 0..<3 {
            let name = "bt-name-\(index)"
            #expect(try await onDedicatedThread(named: name) { Self.currentName() } == name)
        }
    }

    @Test("ten calls blocked at once do not hold up an eleventh")
    func blockedCallsDoNotStarveOthers() async throws {
        // Given ten calls blocked until the test lets them go (120 s at most)
        let gate = Latch()
        let blocked = (0..<10).map { _ in
            Task { try await onDedicatedThread(named: "bt-blocked") { gate.wait() } }
        }
        #expect(try await poll(within: 120, every: 0.005) { gate.waiting == 10 })

        // When another call is made, it runs at once
        let value = try await onDedicatedThread(named: "bt-free") { 42 }

        // Then it returned while the ten were still blocked
        #expect(value == 42)
        #expect(!gate.timedOut, "the eleventh call waited for the blocked ones")
        gate.open()
        for call in blocked { try await call.value }
    }

    /// Runs `body` on `pool` and awaits its result.
    static func run<Value: Sendable>(on pool: BlockingThreads, named name: String,
                                     _ body: @escaping @Sendable () -> Value) async throws -> Value {
        let completion = Completion<Value>()
        pool.run(named: name) {
            let value = body()
            return { completion.resolve(.success(value)) }
        }
        return try await completion.value()
    }

    /// The calling thread's `/proc/<pid>/task/<tid>` path, unique among the live threads.
    static func currentThread() -> String {
        "/proc/" + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "")
    }

    /// The calling thread's name as the kernel shows it.
    static func currentName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
