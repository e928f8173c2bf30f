/// The bounded first-in first-out queue between a ``MediaPipeline``'s stages: a ring of
/// `capacity` slots. It does no locking and no waiting; the pipeline does both around it.
struct ItemQueue<Item> {
    private var slots: [Item?]
    private var head = 0
    private(set) var count = 0

    /// A queue with room for `capacity` items (at least one).
    init(capacity: Int) {
        precondition(capacity > 0)
        slots = Array(repeating: nil, count: capacity)
    }

    var capacity: Int { slots.count }
    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == slots.count }

    /// Adds `item` at the end of a queue that is not full.
    mutating func append(_ item: Item) {
        precondition(!isFull)
        slots[(head + count) % slots.count] = item
        count += 1
    }

    /// Takes the oldest item out of a queue that holds one.
    mutating func removeFirst() -> Item {
        precondition(!isEmpty)
        defer {
            slots[head] = nil
            head = (head + 1) % slots.count
            count -= 1
        }
        return slots[head]!
    }

    /// Drops every item.
    mutating func removeAll() {
        for index in slots.indices { slots[index] = nil }
        head = 0
        count = 0
    }
}
