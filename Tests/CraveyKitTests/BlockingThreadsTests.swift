import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// ``onDedicatedThread(named:_:)``: blocking work off the cooperative pool, on threads that are
/// reused and never make one call wait for another.
@Suite("Blocking work on the shared threads")
struct BlockingThreadsTests {
    @Test("calls one after another reuse a thread, named for each call while it runs, instead of starting a thread each")
    func reusesThreads() async throws {
        // When 20 calls run one after another
        var threads = Set<String>()
        for index in 0..<20 {
            let name = "bt-reuse-\(index)"
            let (thread, comm) = try await onDedicatedThread(named: name) { (Self.currentThread(), Self.currentName()) }
            threads.insert(thread)
            #expect(comm == name)
        }

        // Then they ran on a few threads, not one each (a call made while another test's work
        // holds the idle thread gets a new one)
        #expect(threads.count <= 5, "\(threads.count) threads for 20 calls")
    }

    @Test("ten calls blocked at once do not hold up an eleventh")
    func blockedCallsDoNotStarveOthers() async throws {
        // Given ten calls blocked until the test lets them go (10 s at most)
        let gate = Gate()
        let blocked = (0..<10).map { _ in
            Task { try await onDedicatedThread(named: "bt-blocked") { gate.wait() } }
        }
        #expect(try await poll(within: 30, every: 0.005) { gate.waiting == 10 })

        // When another call is made, it runs at once
        let value = try await onDedicatedThread(named: "bt-free") { 42 }

        // Then it returned while the ten were still blocked
        #expect(value == 42)
        #expect(!gate.timedOut, "the eleventh call waited for the blocked ones")
        gate.open()
        for call in blocked { try await call.value }
    }

    /// The calling thread's `/proc/self/task/<tid>` path, unique among the live threads.
    static func currentThread() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
    }

    /// The calling thread's name as the kernel shows it.
    static func currentName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Threads wait here until the test opens it, for 10 s at most.
// @unchecked Sendable: every `var` is read and written only with `condition` locked.
private final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false
    private var waiters = 0
    private var didTimeOut = false

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    func wait() {
        condition.lock()
        defer { condition.unlock() }
        waiters += 1
        let deadline = Date(timeIntervalSinceNow: 10)
        while !isOpen {
            if !condition.wait(until: deadline) {
                didTimeOut = true
                return
            }
        }
    }

    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiters
    }

    var timedOut: Bool {
        condition.lock()
        defer { condition.unlock() }
        return didTimeOut
    }
}
