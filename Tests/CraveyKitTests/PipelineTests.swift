import CraveyTestSupport
import Foundation
import Synchronization
import Testing
@testable import CraveyKit

/// The media pipeline alone, with integers for media: every wait is on a condition the test
/// can see, with generous deadlines, so a loaded machine is slower but not flaky.
@Suite("The media pipeline")
struct PipelineTests {
    typealias Pipeline = MediaPipeline<Int, [Int], String>

    struct Boom: Error, Equatable {
        let stage: String
    }

    @Test("a full queue stops the producer; a slow consumer keeps at most `capacity` items in flight")
    func backPressure() async throws {
        // Given a queue of 3 and a consumer that waits before popping
        let threads = ThreadNames(), pushed = Counter(), ahead = Counter(), gate = Gate()
        let pipeline = Pipeline(capacity: 3, threads: threads.pair, producer: { stage in
            try stage.ready()
            for item in 0..<20 {
                try stage.push(item)
                pushed.add()
            }
        }, consumer: { stage in
            try stage.ready()
            gate.wait()
            var items: [Int] = []
            while let item = try stage.pop() {
                items.append(item)
                ahead.raise(to: pushed.value - items.count)
                usleep(2_000)
            }
            return items
        })

        // When it runs
        try await pipeline.start()

        // Then the producer fills the queue and waits there, on its own named thread
        #expect(try await poll(within: 120, every: 0.005) { pushed.value == 3 })
        try await Task.sleep(for: .milliseconds(200))
        #expect(pushed.value == 3, "the producer went past a full queue")
        #expect(threads.alive().sorted() == [threads.pair.consumer, threads.pair.producer].sorted())

        // And once the consumer pops, everything arrives in order, never more than 3 ahead
        gate.open()
        #expect(try await pipeline.result() == Array(0..<20))
        #expect(ahead.value <= 3)
        #expect(pipeline.state == .finished)
        try await threads.expectEnded()
    }

    @Test("stop while the producer waits in push: it ends, and the consumer drains everything pushed")
    func stopWhileProducerBlocked() async throws {
        // Given a producer stuck in push on a full queue of 2
        let threads = ThreadNames(), attempts = Counter(), gate = Gate()
        let pipeline = Pipeline(capacity: 2, threads: threads.pair, producer: { stage in
            try stage.ready()
            var item = 0
            while try stage.proceed() {
                attempts.add()
                try stage.push(item)
                item += 1
            }
        }, consumer: { stage in
            try stage.ready()
            gate.wait()
            var items: [Int] = []
            while let item = try stage.pop() { items.append(item) }
            return items
        })
        try await pipeline.start()
        #expect(try await poll(within: 120, every: 0.005) { attempts.value == 3 })

        // When it is stopped, and the consumer goes on
        pipeline.stop()
        #expect(pipeline.state == .stopping)
        gate.open()

        // Then the item it was pushing is delivered, and nothing after it
        #expect(try await pipeline.result() == [0, 1, 2])
        #expect(pipeline.state == .finished)
        try await threads.expectEnded()
    }

    @Test("a producer that throws wakes the consumer waiting in pop; the producer's error, the first, surfaces")
    func producerFailure() async throws {
        // Given a consumer that will wait in pop for more, and throw its own error when woken
        let threads = ThreadNames(), popped = Counter(), consumerWoke = Counter()
        let pipeline = Pipeline(capacity: 4, threads: threads.pair, producer: { stage in
            try stage.ready()
            try stage.push(1)
            try stage.push(2)
            while popped.value < 2 { usleep(1_000) }
            // When the producer fails
            throw Boom(stage: "producer")
        }, consumer: { stage in
            try stage.ready()
            do {
                while try stage.pop() != nil { popped.add() }
            } catch is CancellationError {
                consumerWoke.add()
                throw Boom(stage: "consumer")
            }
            return []
        })
        try await pipeline.start()

        // Then the consumer woke up, and the first error is the result
        await #expect(throws: Boom(stage: "producer")) { try await pipeline.result() }
        #expect(consumerWoke.value == 1)
        #expect(pipeline.state == .failed)
        try await threads.expectEnded()
    }

    @Test("a consumer that throws wakes the producer waiting in push; the consumer's error surfaces")
    func consumerFailure() async throws {
        // Given a producer pushing without end into a queue of 1
        let threads = ThreadNames(), attempts = Counter(), producerWoke = Counter()
        let pipeline = Pipeline(capacity: 1, threads: threads.pair, producer: { stage in
            try stage.ready()
            var item = 0
            do {
                while true {
                    attempts.add()
                    try stage.push(item)
                    item += 1
                }
            } catch {
                producerWoke.add()
                throw error
            }
        }, consumer: { stage in
            try stage.ready()
            _ = try stage.pop()
            // When the consumer fails while the producer waits on the full queue
            while attempts.value < 3 { usleep(1_000) }
            throw Boom(stage: "consumer")
        })
        try await pipeline.start()

        // Then the producer woke up, and the consumer's error is the result
        await #expect(throws: Boom(stage: "consumer")) { try await pipeline.result() }
        #expect(producerWoke.value == 1)
        #expect(pipeline.state == .failed)
        try await threads.expectEnded()
    }

    @Test("a stage failing before it is ready makes start() throw its error, after both threads ended")
    func failureBeforeReady() async throws {
        // Given a consumer that cannot set up
        let threads = ThreadNames(), wentOn = Counter()
        let pipeline = Pipeline(capacity: 1, threads: threads.pair, producer: { stage in
            try stage.ready()
            wentOn.add()
        }, consumer: { _ in
            throw Boom(stage: "consumer")
        })

        // When it starts, then start() throws the consumer's error
        await #expect(throws: Boom(stage: "consumer")) { try await pipeline.start() }

        // And the producer never went past ready(), and both threads have ended
        #expect(wentOn.value == 0)
        try await threads.expectEnded()
        await #expect(throws: Boom(stage: "consumer")) { try await pipeline.result() }
    }

    @Test("cancel wakes a producer waiting in push, drops what is queued, runs the cleanup once, and result() throws CancellationError")
    func cancel() async throws {
        // Given a full queue and a consumer that has not popped yet
        let threads = ThreadNames(), attempts = Counter(), producerEnded = Counter(), popped = Counter()
        let consumerEnded = Counter(), cleanups = Counter(), stagesEndedAtCleanup = Counter(), gate = Gate()
        let pipeline = Pipeline(capacity: 2, threads: threads.pair, producer: { stage in
            defer { producerEnded.add() }
            try stage.ready()
            var item = 0
            while try stage.proceed() {
                attempts.add()
                try stage.push(item)
                item += 1
            }
        }, consumer: { stage in
            defer { consumerEnded.add() }
            try stage.ready()
            gate.wait()
            while try stage.pop() != nil { popped.add() }
            return []
        }, onCancel: {
            cleanups.add()
            stagesEndedAtCleanup.add(producerEnded.value + consumerEnded.value)
        })
        try await pipeline.start()
        #expect(try await poll(within: 120, every: 0.005) { attempts.value == 3 })

        // When it is cancelled
        pipeline.cancel()
        #expect(pipeline.state == .failed)

        // Then the producer ends while the consumer is still held, and the consumer gets nothing more
        #expect(try await poll(within: 120, every: 0.005) { producerEnded.value == 1 })
        gate.open()
        await #expect(throws: CancellationError.self) { try await pipeline.result() }
        #expect(popped.value == 0, "queued items were dropped")
        #expect(cleanups.value == 1)
        #expect(stagesEndedAtCleanup.value == 2, "the cleanup ran after both stages")
        pipeline.cancel()
        #expect(cleanups.value == 1)
        try await threads.expectEnded()
    }

    @Test("cancelling the task that awaits result() cancels the pipeline")
    func taskCancellation() async throws {
        // Given a running pipeline, and a task waiting for its result
        let threads = ThreadNames(), pushed = Counter(), cleanups = Counter()
        let pipeline = Pipeline(capacity: 8, threads: threads.pair, producer: { stage in
            try stage.ready()
            var item = 0
            while try stage.proceed() {
                try stage.push(item)
                pushed.add()
                item += 1
                usleep(1_000)
            }
        }, consumer: { stage in
            try stage.ready()
            var items: [Int] = []
            while let item = try stage.pop() { items.append(item) }
            return items
        }, onCancel: { cleanups.add() })
        try await pipeline.start()
        let waiting = Task { try await pipeline.result() }
        #expect(try await poll(within: 120, every: 0.005) { pushed.value >= 5 })

        // When that task is cancelled
        waiting.cancel()

        // Then it throws CancellationError, and the pipeline was cancelled and cleaned up
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(pipeline.state == .failed)
        #expect(cleanups.value == 1)
        try await threads.expectEnded()
    }

    @Test("pause holds the producer at its next check, resume lets it go on, stop ends a paused pipeline")
    func pauseResume() async throws {
        // Given a producer that checks in before every item, and a consumer that waits while paused
        let threads = ThreadNames(), passed = Counter()
        let pipeline = Pipeline(capacity: 4, threads: threads.pair, producer: { stage in
            try stage.ready()
            var item = 0
            while try stage.proceed() {
                passed.add()
                try stage.push(item)
                item += 1
                usleep(1_000)
            }
        }, consumer: { stage in
            try stage.ready()
            var items: [Int] = []
            while true {
                try stage.waitWhilePaused()
                guard let item = try stage.pop() else { return items }
                items.append(item)
            }
        })
        try await pipeline.start()
        #expect(try await poll(within: 120, every: 0.005) { passed.value >= 5 })

        // When paused, at most the item already under way gets through
        pipeline.pause()
        #expect(pipeline.state == .paused)
        let atPause = passed.value
        try await Task.sleep(for: .milliseconds(300))
        #expect(passed.value <= atPause + 1)

        // When resumed, it goes on
        pipeline.resume()
        #expect(pipeline.state == .running)
        #expect(try await poll(within: 120, every: 0.005) { passed.value >= atPause + 5 })

        // When paused again and stopped, it ends with every item in order
        pipeline.pause()
        pipeline.stop()
        let items = try await pipeline.result()
        #expect(items == Array(0..<passed.value))
        #expect(pipeline.state == .finished)
        try await threads.expectEnded()
    }

    @Test("both stages' events arrive in order on one stream, which finishes when the pipeline ends")
    func events() async throws {
        // Given stages that emit events
        let threads = ThreadNames()
        let pipeline = Pipeline(capacity: 2, threads: threads.pair, producer: { stage in
            try stage.ready()
            for item in 0..<5 {
                stage.emit("produced \(item)")
                try stage.push(item)
            }
        }, consumer: { stage in
            try stage.ready()
            var items: [Int] = []
            while let item = try stage.pop() {
                stage.emit("consumed \(item)")
                items.append(item)
            }
            return items
        })
        let collected = Task {
            var events: [String] = []
            for await event in pipeline.events { events.append(event) }
            return events
        }

        // When it runs to the end
        try await pipeline.start()
        _ = try await pipeline.result()

        // Then the stream has finished, with every event, each stage's in order
        let events = await collected.value
        #expect(events.filter { $0.hasPrefix("produced") } == (0..<5).map { "produced \($0)" })
        #expect(events.filter { $0.hasPrefix("consumed") } == (0..<5).map { "consumed \($0)" })
    }

    @Test("a pipeline cancelled before it starts never runs a stage, and its events finish")
    func cancelBeforeStart() async throws {
        // Given a pipeline that was never started
        let ran = Counter()
        let pipeline = Pipeline(capacity: 1, threads: ThreadNames().pair,
                                producer: { _ in ran.add() }, consumer: { _ in ran.add(); return [] })

        // When it is cancelled
        pipeline.cancel()

        // Then start and result throw CancellationError, the events end, and no stage ran
        await #expect(throws: CancellationError.self) { try await pipeline.start() }
        await #expect(throws: CancellationError.self) { try await pipeline.result() }
        for await _ in pipeline.events { Issue.record("an event arrived") }
        #expect(ran.value == 0)
    }

    @Test("two producers share the queue: the consumer gets every item of both, each in order; the first to end stops the other")
    func twoProducers() async throws {
        // Given a producer that pushes 50 items and ends, and one that pushes until it is told to stop
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let names = (producers: ["pt-\(tag)-a", "pt-\(tag)-b"], consumer: "pt-\(tag)-c")
        let endless = Counter()
        let pipeline = Pipeline(capacity: 4, threads: names, producers: [
            { stage in
                try stage.ready()
                for item in 0..<50 where try stage.proceed() { try stage.push(item) }
            },
            { stage in
                try stage.ready()
                while try stage.proceed() {
                    try stage.push(1_000 + endless.value)
                    endless.add()
                }
            },
        ], consumer: { stage in
            try stage.ready()
            var items: [Int] = []
            while let item = try stage.pop() { items.append(item) }
            return items
        })

        // When it runs to its end
        try await pipeline.start()
        let items = try await pipeline.result()

        // Then the first producer's 50 items and every item the second pushed arrived, each in order
        #expect(items.filter { $0 < 1_000 } == Array(0..<50))
        #expect(items.filter { $0 >= 1_000 } == Array(1_000..<1_000 + endless.value))
        #expect(pipeline.state == .finished)
    }

    @Test("a producer that fails ends the pipeline with its error, the other producer included")
    func twoProducersOneFails() async throws {
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let pipeline = Pipeline(capacity: 2, threads: (producers: ["pt-\(tag)-a", "pt-\(tag)-b"], consumer: "pt-\(tag)-c"),
                                producers: [
                                    { _ in throw Boom(stage: "camera") },
                                    { stage in
                                        try stage.ready()
                                        while try stage.proceed() { try stage.push(1) }
                                    },
                                ], consumer: { stage in
                                    try stage.ready()
                                    while try stage.pop() != nil {}
                                    return []
                                })
        await #expect(throws: Boom(stage: "camera")) { try await pipeline.start() }
        await #expect(throws: Boom(stage: "camera")) { try await pipeline.result() }
        #expect(pipeline.state == .failed)
    }

    @Test("result() is woken by the consumer's last act, not by its thread's end: it returns while that thread is still held in its exit")
    func resultWithoutJoinPolling() async throws {
        // Given a consumer whose thread, once its stage has returned, is held in its exit by a
        // thread-local destructor waiting for the test (120 s at most)
        let threads = ThreadNames(), exit = Latch()
        let pipeline = Pipeline(capacity: 2, threads: threads.pair, producer: { stage in
            try stage.ready()
            for item in 0..<3 { try stage.push(item) }
        }, consumer: { stage in
            exit.holdCurrentThreadAtExit()
            try stage.ready()
            var items: [Int] = []
            while let item = try stage.pop() { items.append(item) }
            return items
        })

        // When it runs to the end
        try await pipeline.start()
        let items = try await pipeline.result()

        // Then result() returned while the consumer's thread was still held: nothing waited for
        // that thread to end (a join polled until it succeeds would have waited the 120 s)
        #expect(items == [0, 1, 2])
        #expect(pipeline.state == .finished)
        #expect(!exit.timedOut, "result() waited for the consumer's thread to end")
        exit.open()
        try await threads.expectEnded()
    }

    @Test("the consumer's pause hook runs at each pause and resume in their order, at once when registered while paused, never at a stop")
    func pauseHook() async throws {
        // Given a consumer that registers its hook only when the test lets it, before ready()
        let threads = ThreadNames(), calls = Locked<[Bool]>([]), register = Latch()
        let pipeline = Pipeline(capacity: 2, threads: threads.pair, producer: { stage in
            try stage.ready()
            while try stage.proceed() {
                try stage.push(0)
                usleep(1_000)
            }
        }, consumer: { stage in
            register.wait()
            stage.onPauseChange { paused in calls.withLock { $0.append(paused) } }
            try stage.ready()
            while try stage.pop() != nil {}
            return []
        })
        let starting = Task { try await pipeline.start() }
        // Long: the task that starts it may wait that long for a thread while the parallel
        // suite's synchronous tests hold the cooperative pool.
        #expect(try await poll(within: 120, every: 0.005) { pipeline.state == .running })

        // When it is paused before the hook exists, then the hook is registered
        pipeline.pause()
        #expect(calls.withLock { $0 }.isEmpty)
        register.open()
        try await starting.value

        // Then the hook has run once, for the pause it missed; a second pause changes nothing
        #expect(calls.withLock { $0 } == [true])
        pipeline.pause()
        #expect(calls.withLock { $0 } == [true])

        // When many tasks pause and resume at once
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { if index % 2 == 0 { pipeline.resume() } else { pipeline.pause() } }
            }
        }

        // Then each call was a change, in order, and the last one says where the pipeline is
        let made = calls.withLock { $0 }
        #expect(zip(made, made.dropFirst()).allSatisfy { $0 != $1 }, "\(made)")
        #expect(made.last == (pipeline.state == .paused))

        // And a stop ends the pipeline without another call
        let before = made.count
        pipeline.stop()
        _ = try await pipeline.result()
        #expect(calls.withLock { $0.count } == before)
        try await threads.expectEnded()
    }

    @Test("a producer in wait(until:) sees a change only when woken (wakeStages, resume, stop), never by polling")
    func waitUntilWoken() async throws {
        // Given a producer waiting for a flag, then for nothing
        let threads = ThreadNames(), flag = Counter(), waiting = Counter(), woke = Counter(), ended = Counter()
        let pipeline = Pipeline(capacity: 2, threads: threads.pair, producer: { stage in
            try stage.ready()
            waiting.add()
            guard try stage.wait(until: { flag.value > 0 }) else { return }
            woke.add()
            if try !stage.wait(until: { false }) { ended.add() }
        }, consumer: { stage in
            try stage.ready()
            while try stage.pop() != nil {}
            return []
        })
        try await pipeline.start()
        #expect(try await poll(within: 120, every: 0.005) { waiting.value == 1 })

        // When the flag is set without a word to the pipeline, it goes unseen
        flag.add()
        try await Task.sleep(for: .milliseconds(300))
        #expect(woke.value == 0, "the producer polled its condition")

        // When the pipeline is paused and then woken, the pause still holds the producer
        pipeline.pause()
        pipeline.wakeStages()
        try await Task.sleep(for: .milliseconds(300))
        #expect(woke.value == 0, "the producer went on while paused")

        // When resumed, it sees the flag; when stopped, its next wait returns false
        pipeline.resume()
        #expect(try await poll(within: 120, every: 0.005) { woke.value == 1 })
        pipeline.stop()
        _ = try await pipeline.result()
        #expect(ended.value == 1)
        try await threads.expectEnded()
    }
}

/// Unique names for one pipeline's two threads, and a look at which of them still run.
private struct ThreadNames {
    let pair: (producer: String, consumer: String)

    init() {
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        pair = ("pt-\(tag)-p", "pt-\(tag)-c")
    }

    /// The names of this process's threads (`/proc/self/task/*/comm`) that are this pipeline's.
    func alive() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return name == pair.producer || name == pair.consumer ? name : nil
        }
    }

    /// Both threads were joined: the kernel removes a joined thread's entry moments later.
    func expectEnded() async throws {
        let names = self
        #expect(try await poll(within: 10, every: 0.01) { names.alive().isEmpty },
                "threads still running: \(alive())")
    }
}

/// A number several threads add to and read.
private final class Counter: Sendable {
    private let atomic = Atomic<Int>(0)

    var value: Int { atomic.load(ordering: .acquiring) }

    func add(_ amount: Int = 1) { atomic.add(amount, ordering: .acquiringAndReleasing) }

    func raise(to candidate: Int) { atomic.max(candidate, ordering: .acquiringAndReleasing) }
}

extension Latch {
    /// Makes the calling thread wait at this latch as it exits, after its closure has returned
    /// (a thread-local value's destructor). The corresponding C function is `pthread_key_create`.
    func holdCurrentThreadAtExit() {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, { latch in
            Unmanaged<Latch>.fromOpaque(latch!).takeRetainedValue().wait()
        }) == 0)
        pthread_setspecific(key, Unmanaged.passRetained(self).toOpaque())
    }
}

/// Holds a stage's thread until the test opens it (polled: the waiting is on a stage's own thread).
private final class Gate: Sendable {
    private let isOpen = Atomic<Bool>(false)
    func open() { isOpen.store(true, ordering: .releasing) }

    func wait() {
        while !isOpen.load(ordering: .acquiring) { usleep(1_000) }
    }
}
