import Foundation
import Testing

/// ``ThreadExecutor``, on which ``Outcome`` runs a command: the task's code and its child tasks
/// run on its thread, never on the cooperative pool, before and after a suspension.
@Suite("A command's thread of its own")
struct ThreadExecutorTests {
    /// The name of the thread this is called on, as the system has it (`/proc/thread-self/comm`).
    static func threadName() -> String? {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    @Test("a task preferring it runs on its thread, after an await too, and so do its child tasks; another task does not")
    func runsOnItsThread() async {
        let elsewhere = Self.threadName()
        let names = await ThreadExecutor.run { () async -> [String?] in
            let first = Self.threadName()
            await Task.yield()
            let afterAwait = Self.threadName()
            async let child = Self.threadName()
            return [first, afterAwait, await child]
        }
        #expect(names == Array(repeating: ThreadExecutor.threadName, count: 3), "\(names)")
        #expect(elsewhere != ThreadExecutor.threadName)
    }
}
