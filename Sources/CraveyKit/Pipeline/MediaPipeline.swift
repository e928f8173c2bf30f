import Foundation

/// One media flow: producer thread(s) -> bounded queue -> consumer thread -> result.
///
/// One state, one stop and cancel path, one event stream. Each producer pushes items (waiting while the queue is full) and asks ``Producer/proceed()``
/// between items, which waits while paused and says when to stop. The consumer pops items until
/// every producer has ended and the queue is drained, then returns the result. Any stage
/// throwing ends all: a waiting push, pop or pause wakes up and throws `CancellationError`,
/// queued items are dropped, and ``result()`` throws the first error. ``result()`` returns only
/// after every thread has ended.
///
/// Most flows have one producer; the video recorder has two (camera and microphone) sharing the
/// queue, in the order their items were pushed. The first producer to end stops the pipeline:
/// the others end at their next ``Producer/proceed()``, so a recording that reached its length
/// on one input stops on all.
///
/// Modelled on swift-nio's `NIOThreadPool`: one state behind one lock, threads owned and joined,
/// work refused once the pipeline is ending.
// @unchecked Sendable: every `var` is read and written only with `condition` locked; the `let`s
// are Sendable.
final class MediaPipeline<Item: Sendable, Output: Sendable, Event: Sendable>: @unchecked Sendable {
    /// Where the pipeline is in its life.
    enum State: Sendable, Equatable {
        /// Made, not started.
        case idle
        /// Both stages run.
        case running
        /// The producer waits at its next ``Producer/proceed()``; the consumer goes on.
        case paused
        /// Asked to stop, or one stage has ended: the consumer drains the queue and finishes.
        case stopping
        /// The consumer returned its result and every thread has ended.
        case finished
        /// A stage threw or the pipeline was cancelled; every stage ends, if it has not yet.
        case failed
    }

    /// Events the stages emit, in order (the newest 256 unread are kept); it finishes when the
    /// pipeline ends.
    let events: AsyncStream<Event>

    private let eventSink: AsyncStream<Event>.Continuation
    private let capacity: Int
    private let threadNames: (producers: [String], consumer: String)
    private let produce: [@Sendable (Producer) throws -> Void]
    private let consume: @Sendable (Consumer) throws -> Output
    private let onCancel: @Sendable () -> Void
    private let readiness = Completion<Void>()
    private let outcome = Completion<Output>()

    private let condition = NSCondition()
    private var current = State.idle
    private var started = false
    private var readyStages = 0
    private var endedProducers = 0
    private var consumerEnded = false
    private var firstError: (any Error)?
    private var queue: [Item?]
    private var head = 0
    private var count = 0
    /// Set by `start()` and cleared once joined: nil after `start()` means the thread was joined.
    private var consumerThread: DedicatedThread?

    /// Makes a pipeline with room for `capacity` items between its two stages.
    ///
    /// The stages run on threads with the given names. `onCancel` runs once both stages have
    /// ended after ``cancel()`` (on the consumer's thread, so it may block), to remove what they left.
    convenience init(capacity: Int, threads: (producer: String, consumer: String),
                     producer: @escaping @Sendable (Producer) throws -> Void,
                     consumer: @escaping @Sendable (Consumer) throws -> Output,
                     onCancel: @escaping @Sendable () -> Void = {}) {
        self.init(capacity: capacity, threads: (producers: [threads.producer], consumer: threads.consumer),
                  producers: [producer], consumer: consumer, onCancel: onCancel)
    }

    /// Makes a pipeline with several producers, one thread each (named in the same order), feeding
    /// one queue with room for `capacity` items.
    init(capacity: Int, threads: (producers: [String], consumer: String),
         producers: [@Sendable (Producer) throws -> Void],
         consumer: @escaping @Sendable (Consumer) throws -> Output,
         onCancel: @escaping @Sendable () -> Void = {}) {
        precondition(capacity > 0 && !producers.isEmpty && producers.count == threads.producers.count)
        self.capacity = capacity
        threadNames = threads
        produce = producers
        consume = consumer
        self.onCancel = onCancel
        queue = Array(repeating: nil, count: capacity)
        (events, eventSink) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
    }

    deinit {
        consumerThread?.detach()
    }

    /// Where the pipeline is now; it may change as soon as it is read.
    var state: State { locked { current } }

    /// Starts every thread and returns once every stage called `ready()` (or one ended).
    ///
    /// When a stage fails first, throws its error after every thread has ended. Cancelling the
    /// waiting task cancels the pipeline.
    func start() async throws {
        try locked {
            precondition(!started, "a MediaPipeline starts once")
            started = true
            if current == .idle { current = .running }
            if current == .failed, let firstError { throw firstError }
            // Started with the lock held, so `consumerThread` is set before anyone can join it.
            let producers = zip(produce, threadNames.producers).map { body, name in
                DedicatedThread.start(named: name) { self.runProducer(body) }
            }
            consumerThread = DedicatedThread.start(named: threadNames.consumer) { self.runConsumer(joining: producers) }
        }
        do {
            try await withTaskCancellationHandler { try await readiness.value() } onCancel: { self.cancel() }
        } catch {
            _ = try? await result()
            throw error
        }
    }

    /// Makes the producer wait at its next ``Producer/proceed()`` until ``resume()``.
    func pause() {
        locked { if current == .running { current = .paused } }
    }

    /// Lets a paused producer go on.
    func resume() {
        locked { if current == .paused { change(to: .running) } }
    }

    /// Stops gracefully, from any thread, before or after `start()`.
    ///
    /// Each producer stops at its next ``Producer/proceed()``; the consumer drains what is queued
    /// and returns.
    func stop() {
        locked { beginStopping() }
    }

    /// Abandons the work; does nothing once the pipeline has finished or failed.
    ///
    /// Both stages stop as soon as they next push, pop, wait or proceed, queued items are
    /// dropped, `onCancel` runs, and ``result()`` throws `CancellationError`.
    func cancel() {
        let notStarted: Bool = locked {
            guard current != .finished, current != .failed else { return false }
            fail(CancellationError())
            return !started
        }
        if notStarted { end(.failure(CancellationError())) }
    }

    /// Waits for the consumer's result, or the first error, and for every thread to end.
    ///
    /// Cancelling the waiting task cancels the pipeline.
    func result() async throws -> Output {
        let result: Result<Output, any Error>
        do {
            result = .success(try await withTaskCancellationHandler { try await outcome.value() }
                                                                   onCancel: { self.cancel() })
        } catch {
            result = .failure(error)
        }
        // The consumer thread resolves the outcome as its last act and ends microseconds later.
        while !locked({ joinConsumer() }) {
            try? await Task.sleep(for: .milliseconds(1))
            await Task.yield()
        }
        return try result.get()
    }

    // MARK: - The stages' side

    /// What the producer's closure gets: push items, emit events, ask whether to go on.
    struct Producer: Sendable {
        fileprivate let pipeline: MediaPipeline

        /// Says this stage is set up, and waits until every other stage is too.
        ///
        /// Throws `CancellationError` when the pipeline failed or was cancelled meanwhile.
        func ready() throws { try pipeline.stageReady() }

        /// Waits while paused; false once the pipeline is stopping (return then).
        ///
        /// Throws `CancellationError` once the pipeline failed or was cancelled.
        func proceed() throws -> Bool { try pipeline.waitWhilePaused() == .running }

        /// Queues `item`, waiting while the queue is full.
        ///
        /// False when the consumer has already returned and nobody will take it; throws
        /// `CancellationError` once the pipeline failed or was cancelled.
        @discardableResult
        func push(_ item: Item) throws -> Bool { try pipeline.push(item) }

        /// Sends an event to ``MediaPipeline/events``.
        func emit(_ event: Event) { pipeline.eventSink.yield(event) }
    }

    /// What the consumer's closure gets: pop items, wait while paused, emit events.
    struct Consumer: Sendable {
        fileprivate let pipeline: MediaPipeline

        /// Says this stage is set up, and waits until every producer is too.
        ///
        /// Throws `CancellationError` when the pipeline failed or was cancelled meanwhile.
        func ready() throws { try pipeline.stageReady() }

        /// The next item, waiting while the queue is empty.
        ///
        /// Nil once every producer has ended and everything was popped; throws `CancellationError`
        /// once the pipeline failed or was cancelled.
        func pop() throws -> Item? { try pipeline.pop() }

        /// Waits while the pipeline is paused (a player stops its output here).
        ///
        /// Throws `CancellationError` once the pipeline failed or was cancelled.
        func waitWhilePaused() throws { _ = try pipeline.waitWhilePaused() }

        /// Sends an event to ``MediaPipeline/events``.
        func emit(_ event: Event) { pipeline.eventSink.yield(event) }
    }

    private func stageReady() throws {
        let stages = produce.count + 1
        let allReady: Bool = try locked {
            readyStages += 1
            condition.broadcast()
            while readyStages < stages, current != .failed, endedProducers == 0, !consumerEnded { condition.wait() }
            try throwIfFailed()
            return readyStages == stages
        }
        if allReady { readiness.resolve(.success(())) }
    }

    private func push(_ item: Item) throws -> Bool {
        try locked {
            while count == capacity, current != .failed, !consumerEnded { condition.wait() }
            try throwIfFailed()
            guard !consumerEnded else { return false }
            queue[(head + count) % capacity] = item
            count += 1
            condition.broadcast()
            return true
        }
    }

    private func pop() throws -> Item? {
        try locked {
            while count == 0, current != .failed, endedProducers < produce.count { condition.wait() }
            try throwIfFailed()
            guard count > 0 else { return nil }
            defer {
                queue[head] = nil
                head = (head + 1) % capacity
                count -= 1
                condition.broadcast()
            }
            return queue[head]
        }
    }

    /// Waits while paused; returns the state it waited for.
    private func waitWhilePaused() throws -> State {
        try locked {
            while current == .paused { condition.wait() }
            try throwIfFailed()
            return current
        }
    }

    // MARK: - Threads

    private func runProducer(_ body: @Sendable (Producer) throws -> Void) {
        do { try body(Producer(pipeline: self)) } catch { locked { fail(error) } }
        locked {
            endedProducers += 1
            beginStopping()
        }
    }

    /// The consumer thread: runs the stage, joins the producers, and delivers the outcome.
    ///
    /// The outcome is the first error, or the consumer's result; `onCancel` runs first if cancelled.
    private func runConsumer(joining producers: [DedicatedThread]) {
        let output = Result { try consume(Consumer(pipeline: self)) }
        locked {
            if case .failure(let error) = output { fail(error) }
            consumerEnded = true
            dropQueued()
            beginStopping()
        }
        for producer in producers { producer.join() }
        // Only ``cancel()`` makes `CancellationError` the first error; the stages throw it once failed.
        let (final, wasCancelled): (Result<Output, any Error>, Bool) = locked {
            if let firstError { return (.failure(firstError), firstError is CancellationError) }
            current = .finished
            return (output, false)
        }
        if wasCancelled { onCancel() }
        end(final)
    }

    private func end(_ final: Result<Output, any Error>) {
        eventSink.finish()
        readiness.resolve(final.map { _ in () })
        outcome.resolve(final)
    }

    // MARK: - With `condition` locked

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    /// Moves the pipeline to `.stopping` unless it is already ending; wakes every waiting stage.
    private func beginStopping() {
        switch current {
        case .idle, .running, .paused: current = .stopping
        case .stopping, .finished, .failed: break
        }
        condition.broadcast()
    }

    private func change(to state: State) {
        current = state
        condition.broadcast()
    }

    /// Records the first error, fails the pipeline and wakes every waiting stage.
    private func fail(_ error: any Error) {
        guard firstError == nil else { return }
        firstError = error
        change(to: .failed)
        dropQueued()
    }

    private func throwIfFailed() throws {
        if current == .failed { throw CancellationError() }
    }

    private func dropQueued() {
        for index in queue.indices { queue[index] = nil }
        head = 0
        count = 0
    }

    /// Joins the consumer thread if it has ended; true once joined (or never started).
    private func joinConsumer() -> Bool {
        guard let thread = consumerThread else { return true }
        guard thread.joinIfEnded() else { return false }
        consumerThread = nil
        return true
    }
}
