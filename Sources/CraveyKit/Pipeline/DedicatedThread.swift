import Foundation

/// Runs blocking work off the cooperative thread pool and awaits its result.
///
/// For a C call that waits on a socket or the disk (an import, a doctor, a SQLite busy wait): the
/// work runs on a ``BlockingThreads`` thread named `name` while it runs, reused from earlier work
/// when one is idle, so the cooperative pool never blocks and no call waits behind another.
package func onDedicatedThread<Value: Sendable>(named name: String,
                                                _ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    let completion = Completion<Value>()
    BlockingThreads.shared.run(named: name) {
        let result = Result { try body() }
        return { completion.resolve(result) }
    }
    return try await completion.value()
}

/// A named POSIX thread running one closure, joined (or detached) by whoever started it.
struct DedicatedThread: Sendable {
    private let thread: pthread_t

    /// Starts a thread named `name` running `body`.
    ///
    /// The first 15 bytes of the name show in `/proc/<pid>/task/*/comm`.
    /// The corresponding C function is `pthread_create`.
    static func start(named name: String, _ body: @escaping @Sendable () -> Void) -> DedicatedThread {
        let work = Unmanaged.passRetained(Work {
            Thread.current.name = name
            body()
        }).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { work in
            Unmanaged<Work>.fromOpaque(work!).takeRetainedValue().body()
            return nil
        }, work)
        precondition(created == 0, "pthread_create failed: \(String(cString: strerror(created)))")
        return DedicatedThread(thread: thread)
    }

    /// Waits for the thread to end.
    ///
    /// Blocks: call it from another dedicated thread, never from a task.
    /// The corresponding C function is `pthread_join`.
    func join() {
        pthread_join(thread, nil)
    }

    /// Lets the thread's resources go when it ends, for a thread nobody will join.
    /// The corresponding C function is `pthread_detach`.
    func detach() {
        pthread_detach(thread)
    }

    /// The thread's closure, boxed to cross `pthread_create`'s `void *` argument.
    private final class Work: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
