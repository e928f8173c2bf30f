import Foundation

/// One media flow: producer thread(s) -> bounded queue -> consumer thread -> result.
///
/// One state, one stop and cancel path, one event stream. Each producer pushes items (waiting while the queue is full) and asks ``Producer/proceed()``
/// between items, which waits while paused and says when to stop. The consumer pops items until
/// every producer has ended and the queue is drained, then returns the result. Any stage
/// throwing ends all: a waiting push, pop or pause wakes up and throws `CancellationError`,
/// queued items are dropped, and ``result()`` throws the first error. ``result()`` returns only
/// after every stage has ended: the consumer's thread joins the producers' and delivers the
/// outcome as its last act.
///
/// Most flows have one producer; the video recorder has two (camera and microphone) sharing the
/// queue, in the order their items were pushed. The first producer to end stops the pipeline:
/// the others end at their next ``Producer/proceed()``, so a recording that reached its length
/// on one input stops on all.
///
/// The pipeline owns its pause: a stage that must do more than wait while paused (a player corks
/// its stream) registers ``Consumer/onPauseChange(_:)``, which ``pause()`` and ``resume()`` run;
/// a producer that reads on through a pause (a recorder's microphone) asks
/// ``Producer/proceed(throughPause:)`` and ``Producer/isPaused`` instead of waiting.
///
/// The pipeline owns its stop too: a consumer that ends at once rather than draining the queue (a
/// player) asks ``Consumer/isStopping``, and one that waits on something other than the pipeline
/// (a stream's mainloop) registers ``Consumer/onWake(_:)``, which every change it must see runs.
///
/// Modelled on swift-nio's `NIOThreadPool`: one state enum behind one condition lock, threads
/// owned and joined, work refused once the pipeline is ending.
// @unchecked Sendable: `life` and `queue` are read and written only with
// `condition` locked; the `let`s are Sendable.
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
        /// The consumer returned its result and every stage has ended.
        case finished
        /// A stage threw or the pipeline was cancelled; every stage ends, if it has not yet.
        case failed
    }

    /// Events the stages emit, in order (the newest 256 unread are kept); it finishes when the
    /// pipeline ends.
    let events: AsyncStream<Event>

    private let eventSink: AsyncStream<Event>.Continuation
    private let threadNames: (producers: [String], consumer: String)
    private let produce: [@Sendable (Producer) throws -> Void]
    private let consume: @Sendable (Consumer) throws -> Output
    private let onCancel: @Sendable () -> Void
    private let readiness = Completion<Void>()
    private let outcome = Completion<Output>()

    private let condition = NSCondition()
    /// Orders the calls of the pause hook, so the last one made is the last one run; it guards
    /// no state, and the hook runs without `condition` held.
    private let pauseChanges = NSLock()
    private var life = Life.idle(stopRequested: false)
    private var queue: ItemQueue<Item>

    /// The pipeline's life: the one owner of what its threads and its callers know of each other.
    private enum Life {
        /// Made, not started; `stopRequested` when ``stop()`` came first (the stages then start
        /// stopping).
        case idle(stopRequested: Bool)
        /// The threads run; `paused` holds the producers at ``Producer/proceed()`` and the consumer
        /// at ``Consumer/waitWhilePaused()``.
        case running(Stages, paused: Bool)
        /// Asked to stop, or a producer ended: the producers end at their next
        /// ``Producer/proceed()``; the consumer drains the queue.
        case stopping(Stages)
        /// The consumer returned: pushes are refused, and its thread joins the producers'.
        case ending
        /// The consumer's result was delivered; every stage has ended.
        case finished
        /// A stage threw, or the pipeline was cancelled, first with `error`; every stage ends.
        case failed(any Error)

        /// The stages' progress while the threads run (running or stopping); nil otherwise.
        var stages: Stages? {
            switch self {
            case .running(let stages, _), .stopping(let stages): stages
            case .idle, .ending, .finished, .failed: nil
            }
        }

        /// Changes the stages' progress while the threads run; does nothing otherwise.
        mutating func updateStages(_ change: (inout Stages) -> Void) {
            switch self {
            case .running(var stages, let paused):
                change(&stages)
                self = .running(stages, paused: paused)
            case .stopping(var stages):
                change(&stages)
                self = .stopping(stages)
            case .idle, .ending, .finished, .failed:
                break
            }
        }
    }

    /// What the stages of a started pipeline have done so far.
    private struct Stages {
        /// Stages that called `ready()`.
        var ready = 0
        /// Producers whose closure has returned.
        var endedProducers = 0
        /// What a pause (true) and a resume (false) do beside holding the stages.
        var onPauseChange: (@Sendable (Bool) throws -> Void)?
        /// Wakes the consumer where it waits on something other than the pipeline.
        var onWake: (@Sendable () -> Void)?
    }

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
        threadNames = threads
        produce = producers
        consume = consumer
        self.onCancel = onCancel
        queue = ItemQueue(capacity: capacity)
        (events, eventSink) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
    }

    /// Where the pipeline is now; it may change as soon as it is read.
    var state: State {
        locked {
            switch life {
            case .idle(stopRequested: false): .idle
            case .idle(stopRequested: true), .stopping, .ending: .stopping
            case .running(_, let paused): paused ? .paused : .running
            case .finished: .finished
            case .failed: .failed
            }
        }
    }

    /// False until ``start()`` (or ``cancel()``, which ends a pipeline that never started).
    var wasStarted: Bool {
        locked {
            if case .idle = life { return false }
            return true
        }
    }

    /// Starts every thread and returns once every stage called `ready()` (or one ended).
    ///
    /// When a stage fails first, throws its error after every stage has ended. Cancelling the
    /// waiting task cancels the pipeline.
    func start() async throws {
        try locked {
            switch life {
            case .idle(let stopRequested):
                life = stopRequested ? .stopping(Stages()) : .running(Stages(), paused: false)
            case .failed(let error):
                throw error
            case .running, .stopping, .ending, .finished:
                preconditionFailure("a MediaPipeline starts once")
            }
        }
        let producers = zip(produce, threadNames.producers).map { body, name in
            DedicatedThread.start(named: name) { self.runProducer(body) }
        }
        // Nobody joins the consumer's thread: it delivers the outcome as its last act.
        DedicatedThread.start(named: threadNames.consumer) { self.runConsumer(joining: producers) }.detach()
        do {
            try await withTaskCancellationHandler { try await readiness.value() } onCancel: { self.cancel() }
        } catch {
            // Waits for every stage to end; their outcome is the error thrown here.
            _ = try? await result()
            throw error
        }
    }

    /// Makes the producer wait at its next ``Producer/proceed()`` until ``resume()``, and runs
    /// the consumer's pause hook; nothing happens unless the pipeline is running.
    ///
    /// Returns false when nothing changed: the pipeline was not running unpaused, or the pause
    /// hook threw (the sound server refused to cork), which leaves the pipeline running.
    @discardableResult
    func pause() -> Bool {
        changePause(to: true)
    }

    /// Lets a paused producer go on, and runs the consumer's pause hook.
    ///
    /// Returns false when nothing changed: the pipeline was not paused, or the pause hook threw,
    /// which leaves it paused.
    @discardableResult
    func resume() -> Bool {
        changePause(to: false)
    }

    /// Stops gracefully, from any thread, before or after `start()`.
    ///
    /// Each producer stops at its next ``Producer/proceed()``; the consumer drains what is queued
    /// and returns.
    func stop() {
        let wake: (@Sendable () -> Void)? = locked {
            switch life {
            case .idle: life = .idle(stopRequested: true)
            case .running(let stages, _): life = .stopping(stages)
            case .stopping, .ending, .finished, .failed: break
            }
            condition.broadcast()
            return life.stages?.onWake
        }
        wake?()
    }

    /// Abandons the work; does nothing once the pipeline has finished or failed.
    ///
    /// Both stages stop as soon as they next push, pop, wait or proceed, queued items are
    /// dropped, `onCancel` runs, and ``result()`` throws `CancellationError`.
    func cancel() {
        let (notStarted, wake): (Bool, (@Sendable () -> Void)?) = locked {
            let wake = life.stages?.onWake
            switch life {
            case .finished, .failed: return (false, nil)
            case .idle:
                fail(CancellationError())
                return (true, nil)
            case .running, .stopping, .ending:
                fail(CancellationError())
                return (false, wake)
            }
        }
        wake?()
        if notStarted { end(.failure(CancellationError())) }
    }

    /// Wakes every stage waiting in ``Producer/wait(until:)`` to check its condition again, and
    /// runs the consumer's ``Consumer/onWake(_:)``: call it after changing what that condition
    /// reads (a player's seek).
    func wakeStages() {
        let wake = locked {
            condition.broadcast()
            return life.stages?.onWake
        }
        wake?()
    }

    /// Waits for the consumer's result, or the first error; every stage has ended by then.
    ///
    /// Cancelling the waiting task cancels the pipeline.
    func result() async throws -> Output {
        try await withTaskCancellationHandler { try await outcome.value() } onCancel: { self.cancel() }
    }

    // MARK: - The stages' side

    /// What the producer's closure gets: push items, emit events, ask whether to go on.
    struct Producer: Sendable {
        fileprivate let pipeline: MediaPipeline

        /// Says this stage is set up, and waits until every other stage is too.
        ///
        /// Throws `CancellationError` when the pipeline failed or was cancelled meanwhile.
        func ready() throws { try pipeline.stageReady() }

        /// Waits while paused (unless `throughPause`); false once the pipeline is stopping (return
        /// then).
        ///
        /// A producer that must read on through a pause (a microphone, a camera: what they
        /// capture meanwhile is let go, not left to pile up) passes `throughPause` and asks
        /// ``isPaused`` what to do with what it reads. Throws `CancellationError` once the
        /// pipeline failed or was cancelled.
        func proceed(throughPause: Bool = false) throws -> Bool {
            try pipeline.wait(until: { true }, throughPause: throughPause)
        }

        /// Whether the pipeline is paused now (``MediaPipeline/pause()``).
        var isPaused: Bool { pipeline.state == .paused }

        /// Waits until `condition` holds while the pipeline runs unpaused; false once it is
        /// stopping (return then).
        ///
        /// `condition` is asked with the pipeline's lock held, each time a stage's wait may be over:
        /// at ``MediaPipeline/wakeStages()``, a pause or resume, a stop. It must not call the
        /// pipeline. Throws `CancellationError` once the pipeline failed or was cancelled.
        func wait(until condition: () -> Bool) throws -> Bool { try pipeline.wait(until: condition) }

        /// Queues `item`, waiting while the queue is full.
        ///
        /// False when the consumer has already returned and nobody will take it; throws
        /// `CancellationError` once the pipeline failed or was cancelled.
        @discardableResult
        func push(_ item: Item) throws -> Bool { try pipeline.push(item) }

        /// Sends an event to ``MediaPipeline/events``.
        func emit(_ event: Event) { pipeline.eventSink.yield(event) }
    }

    /// What ``Consumer/poll()`` finds.
    enum Polled {
        case item(Item)
        /// Nothing queued yet; a producer is still going.
        case empty
        /// Every producer has ended and everything was popped.
        case ended
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

        /// The next item if one is queued, without waiting: for a consumer that waits on something
        /// else (a window's events).
        ///
        /// `.ended` once every producer has ended and everything was popped; throws
        /// `CancellationError` once the pipeline failed or was cancelled.
        func poll() throws -> Polled { try pipeline.poll() }

        /// Waits while the pipeline is paused (a player stops its output here).
        ///
        /// Throws `CancellationError` once the pipeline failed or was cancelled.
        func waitWhilePaused() throws { _ = try pipeline.wait(until: { true }) }

        /// True once the pipeline is stopping (asked to, or its producers have ended) or has
        /// failed: a consumer that ends at once at a stop instead of draining the queue (a player)
        /// asks it between items, and where it waits on something else (``onWake(_:)``).
        var isStopping: Bool {
            switch pipeline.state {
            case .idle, .running, .paused: false
            case .stopping, .finished, .failed: true
            }
        }

        /// Registers what a pause (`true`) and a resume (`false`) do beside holding the stages: a
        /// player corks its stream. It runs at once if the pipeline is paused already.
        ///
        /// It runs on the thread that calls ``MediaPipeline/pause()`` or ``MediaPipeline/resume()``,
        /// one call at a time and in their order, without the pipeline's lock, before the stages
        /// see the change; never once the pipeline is stopping (a stop ends a pause without a
        /// resume). When it throws, the change does not happen (the pipeline stays as it was).
        func onPauseChange(_ body: @escaping @Sendable (_ paused: Bool) throws -> Void) {
            pipeline.setPauseHook(body)
        }

        /// Registers how to wake this stage where it waits on something other than the pipeline
        /// (a stream's mainloop, to ask ``isStopping`` again): it runs after a stop, a
        /// cancellation, a producer's failure and ``MediaPipeline/wakeStages()``, on the thread
        /// that made the change, without the pipeline's lock.
        func onWake(_ body: @escaping @Sendable () -> Void) {
            pipeline.setWakeHook(body)
        }

        /// Sends an event to ``MediaPipeline/events``.
        func emit(_ event: Event) { pipeline.eventSink.yield(event) }
    }

    private func stageReady() throws {
        let stages = produce.count + 1
        let allReady: Bool = try locked {
            life.updateStages { $0.ready += 1 }
            condition.broadcast()
            while let started = life.stages, started.ready < stages, started.endedProducers == 0 { condition.wait() }
            try throwIfFailed()
            return life.stages?.ready == stages
        }
        if allReady { readiness.resolve(.success(())) }
    }

    private func push(_ item: Item) throws -> Bool {
        try locked {
            while queue.isFull, life.stages != nil { condition.wait() }
            try throwIfFailed()
            guard life.stages != nil else { return false }
            queue.append(item)
            // Only a consumer finding the queue empty waits for an item.
            if queue.count == 1 { condition.broadcast() }
            return true
        }
    }

    private func pop() throws -> Item? {
        try locked {
            while queue.isEmpty, let stages = life.stages, stages.endedProducers < produce.count { condition.wait() }
            try throwIfFailed()
            return queue.isEmpty ? nil : takeFirst()
        }
    }

    private func poll() throws -> Polled {
        try locked {
            try throwIfFailed()
            if !queue.isEmpty { return .item(takeFirst()) }
            guard let stages = life.stages, stages.endedProducers < produce.count else { return .ended }
            return .empty
        }
    }

    /// Waits while paused (unless `throughPause`) or until `ready` holds; false once the
    /// pipeline is stopping.
    private func wait(until ready: () -> Bool, throughPause: Bool = false) throws -> Bool {
        try locked {
            while true {
                switch life {
                case .running(_, let paused):
                    if !paused || throughPause, ready() { return true }
                case .failed:
                    throw CancellationError()
                case .idle, .stopping, .ending, .finished:
                    return false
                }
                condition.wait()
            }
        }
    }

    /// Runs the pause hook, then, unless it threw, makes the change the stages see.
    private func changePause(to paused: Bool) -> Bool {
        pauseChanges.lock()
        defer { pauseChanges.unlock() }
        let hook: (@Sendable (Bool) throws -> Void)? = locked {
            guard case .running(let stages, let wasPaused) = life, wasPaused != paused else { return nil }
            return stages.onPauseChange ?? { _ in }
        }
        guard let hook else { return false }
        do {
            try hook(paused)
        } catch {
            return false
        }
        return locked {
            // A stop or a failure may have come meanwhile: it ends the pause question.
            guard case .running(let stages, _) = life else { return false }
            life = .running(stages, paused: paused)
            condition.broadcast()
            return true
        }
    }

    private func setPauseHook(_ body: @escaping @Sendable (Bool) throws -> Void) {
        pauseChanges.lock()
        defer { pauseChanges.unlock() }
        let paused: Bool = locked {
            life.updateStages { $0.onPauseChange = body }
            if case .running(_, paused: true) = life { return true }
            return false
        }
        guard paused else { return }
        do {
            try body(true)
        } catch {
            // The pause it missed cannot take effect: the pipeline runs on.
            locked {
                guard case .running(let stages, paused: true) = life else { return }
                life = .running(stages, paused: false)
                condition.broadcast()
            }
        }
    }

    private func setWakeHook(_ body: @escaping @Sendable () -> Void) {
        locked { life.updateStages { $0.onWake = body } }
    }

    // MARK: - Threads

    private func runProducer(_ body: @Sendable (Producer) throws -> Void) {
        do {
            try body(Producer(pipeline: self))
        } catch {
            let wake = locked {
                defer { fail(error) }
                return life.stages?.onWake
            }
            wake?()
        }
        let wake = locked {
            if var stages = life.stages {
                stages.endedProducers += 1
                life = .stopping(stages)
            }
            condition.broadcast()
            return life.stages?.onWake
        }
        // The consumer's isStopping has changed.
        wake?()
    }

    /// The consumer's thread: runs the stage, joins the producers' threads, and delivers the
    /// outcome as its last act.
    ///
    /// The outcome is the first error, or the consumer's result; `onCancel` runs first if cancelled.
    private func runConsumer(joining producers: [DedicatedThread]) {
        let output = Result { try consume(Consumer(pipeline: self)) }
        locked {
            if case .failure(let error) = output { fail(error) }
            if life.stages != nil { life = .ending }
            queue.removeAll()
            condition.broadcast()
        }
        for producer in producers { producer.join() }
        let final: Result<Output, any Error> = locked {
            if case .failed(let error) = life { return .failure(error) }
            life = .finished
            return output
        }
        // Only ``cancel()`` makes `CancellationError` the first error; the stages throw it once failed.
        if case .failure(let error) = final, error is CancellationError { onCancel() }
        end(final)
    }

    /// Finishes the events and delivers the outcome.
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

    /// Records the first error, fails the pipeline and wakes every waiting stage.
    private func fail(_ error: any Error) {
        switch life {
        case .failed, .finished: return
        case .idle, .running, .stopping, .ending: life = .failed(error)
        }
        queue.removeAll()
        condition.broadcast()
    }

    /// Takes the oldest item out of a queue that holds one.
    private func takeFirst() -> Item {
        // Only producers finding the queue full wait for room.
        if queue.isFull { condition.broadcast() }
        return queue.removeFirst()
    }

    private func throwIfFailed() throws {
        if case .failed = life { throw CancellationError() }
    }

}
