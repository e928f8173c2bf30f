/// A result that arrives once, from any thread, and that any number of tasks can await.
///
/// Threads that run blocking C code resolve it; async code awaits it without blocking the
/// cooperative pool.
final class Completion<Value: Sendable>: Sendable {
    private enum State {
        case pending([CheckedContinuation<Value, any Error>])
        case done(Result<Value, any Error>)
    }

    private let state = Locked<State>(.pending([]))

    /// Delivers the result; later calls are ignored.
    func resolve(_ result: Result<Value, any Error>) {
        let waiting: [CheckedContinuation<Value, any Error>] = state.withLock { state in
            guard case .pending(let waiting) = state else { return [] }
            state = .done(result)
            return waiting
        }
        for continuation in waiting { continuation.resume(with: result) }
    }

    /// Waits for the result.
    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let result: Result<Value, any Error>? = state.withLock { state in
                switch state {
                case .pending(let waiting):
                    state = .pending(waiting + [continuation])
                    return nil
                case .done(let result):
                    return result
                }
            }
            if let result { continuation.resume(with: result) }
        }
    }
}
