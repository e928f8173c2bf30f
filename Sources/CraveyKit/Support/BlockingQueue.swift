import Foundation

/// A bounded first-in first-out queue between two dedicated threads: `push` waits while it is
/// full, `pop` waits while it is empty. Never use it from the cooperative thread pool.
// @unchecked Sendable: every access to `items` happens while `condition` is locked.
final class BlockingQueue<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    func push(_ element: Element) {
        condition.lock()
        defer { condition.unlock() }
        while items.count - head >= capacity { condition.wait() }
        items.append(element)
        condition.broadcast()
    }

    func pop() -> Element {
        condition.lock()
        defer { condition.unlock() }
        while items.count == head { condition.wait() }
        let element = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return element
    }
}
