import Foundation

/// Threads wait here until the test opens it, for 120 s at most (a limit a test that passes
/// never reaches, however slowly a busy machine resumes its task).
// @unchecked Sendable: every `var` is read and written only with `condition` locked.
public final class Latch: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false
    private var waiters = 0
    private var didTimeOut = false

    public init() {}

    public func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until opened, or 120 s.
    public func wait() {
        condition.lock()
        defer { condition.unlock() }
        waiters += 1
        let deadline = Date(timeIntervalSinceNow: 120)
        while !isOpen {
            if !condition.wait(until: deadline) {
                didTimeOut = true
                return
            }
        }
    }

    /// How many waits have begun.
    public var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiters
    }

    /// True once a wait gave up.
    public var timedOut: Bool {
        condition.lock()
        defer { condition.unlock() }
        return didTimeOut
    }
}
