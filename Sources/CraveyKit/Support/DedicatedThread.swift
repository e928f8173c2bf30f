import Foundation
import Synchronization

/// Runs blocking work (a C call that waits on a socket or the disk) on a thread of its own and
/// awaits its result, so the cooperative thread pool never blocks.
func onDedicatedThread<Value: Sendable>(named name: String,
                                        _ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    let completion = Completion<Value>()
    startThread(named: name) { completion.resolve(Result { try body() }) }
    return try await completion.value()
}

/// Starts a named thread running `body`.
func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = name
    thread.start()
}

/// A flag one side raises and another polls, across threads.
final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)

    func raise() { flag.store(true, ordering: .releasing) }
    var isRaised: Bool { flag.load(ordering: .acquiring) }
}
