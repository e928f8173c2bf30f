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
        let threads = ThreadNames(), attempts = Counter(), pushed = Counter(), ahead = Counter(), gate = Latch()
        let pipeline = Pipeline(capacity: 3, threads: threads.pair, producer: { stage in
            try stage.ready()
            for item in 0..<20 {
                attempts.add()
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
            }
            return items
        })

        // When it runs
        try await pipeline.start()

        // Then the producer fills the queue and waits there, in its fourth push, on its own named
        // thread
        #expect(try await poll(within: 120, every: 0.005) { attempts.value == 4 && threads.isWaiting(threads.pair.producer) })
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
        let threads = ThreadNames(), attempts = Counter(), gate = Latch()
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
        let threads = ThreadNames(), popped = Counter(), consumerWoke = Counter(), bothPopped = Latch()
        let pipeline = Pipeline(capacity: 4, threads: threads.pair, producer: { stage in
            try stage.ready()
            try stage.push(1)
            try stage.push(2)
            bothPopped.wait()
            // When the producer fails
            throw Boom(stage: "producer")
        }, consumer: { stage in
            try stage.ready()
            do {
                while try stage.pop() != nil {
                    popped.add()
                    if popped.value == 2 { bothPopped.open() }
                }
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
        let threads = ThreadNames(), attempts = Counter(), producerWoke = Counter(), third = Latch()
        let pipeline = Pipeline(capacity: 1, threads: threads.pair, producer: { stage in
            try stage.ready()
            var item = 0
            do {
                while true {
                    attempts.add()
                    if attempts.value == 3 { third.open() }
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
            // When the consumer fails once the producer is at its third push, on a full queue
            third.wait()
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
        let consumerEnded = Counter(), cleanups = Counter(), stagesEndedAtCleanup = Counter(), gate = Latch()
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
        // Given a running pipeline whose producer pushed 5 items and waits, and a task waiting
        // for its result
        let threads = ThreadNames(), pushed = Counter(), cleanups = Counter()
        let pipeline = Pipeline(capacity: 8, threads: threads.pair, producer: { stage in
            try stage.ready()
            for item in 0..<5 {
                try stage.push(item)
                pushed.add()
            }
            _ = try stage.wait(until: { false })
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

        // When paused, at most the item already under way gets through: once the producer waits
        // (at its check, or in a push the paused consumer does not take), nothing more passes
        pipeline.pause()
        #expect(pipeline.state == .paused)
        let atPause = passed.value
        #expect(try await poll(within: 120, every: 0.005) { threads.isWaiting(threads.pair.producer) })
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
            _ = try stage.wait(until: { false })
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

    @Test("a pause hook that throws (a cork the server refuses) leaves the pipeline as it was: running after a refused pause, paused after a refused resume")
    func refusedPauseChange() async throws {
        // Given a consumer whose hook refuses whenever the test says so
        let threads = ThreadNames(), refusing = Locked(false), calls = Locked<[Bool]>([])
        struct Refused: Error {}
        let pipeline = Pipeline(capacity: 2, threads: threads.pair, producer: { stage in
            try stage.ready()
            _ = try stage.wait(until: { false })
        }, consumer: { stage in
            stage.onPauseChange { paused in
                calls.withLock { $0.append(paused) }
                if refusing.withLock({ $0 }) { throw Refused() }
            }
            try stage.ready()
            while try stage.pop() != nil {}
            return []
        })
        try await pipeline.start()

        // When a pause is refused, it is not made: the pipeline runs on
        refusing.withLock { $0 = true }
        #expect(!pipeline.pause())
        #expect(pipeline.state == .running)

        // When a pause is accepted, then a resume refused, it stays paused
        refusing.withLock { $0 = false }
        #expect(pipeline.pause())
        #expect(pipeline.state == .paused)
        refusing.withLock { $0 = true }
        #expect(!pipeline.resume())
        #expect(pipeline.state == .paused)

        // Then the hook was asked each time, and a stop still ends the pipeline
        #expect(calls.withLock { $0 } == [true, true, false])
        pipeline.stop()
        _ = try await pipeline.result()
        try await threads.expectEnded()
    }

    @Test("a producer that reads on through a pause sees it (isPaused) without waiting; a consumer sees a stop (isStopping) and is woken by it (onWake)")
    func readThroughPauseAndWakeOnStop() async throws {
        // Given a producer that pushes an item, and another once the test has paused the
        // pipeline, and a consumer that waits on a latch of its own (as a player waits on its
        // stream) until it is woken and the pipeline is stopping
        let threads = ThreadNames(), first = Latch(), paused = Latch(), second = Latch(), elsewhere = Latch()
        let wakes = Counter()
        let pipeline = Pipeline(capacity: 4, threads: threads.pair, producer: { stage in
            try stage.ready()
            guard try stage.proceed(throughPause: true) else { return }
            try stage.push(stage.isPaused ? -1 : 0)
            first.open()
            paused.wait()
            guard try stage.proceed(throughPause: true) else { return }
            try stage.push(stage.isPaused ? -1 : 1)
            second.open()
            _ = try stage.wait(until: { false })
        }, consumer: { stage in
            stage.onWake {
                wakes.add()
                elsewhere.open()
            }
            try stage.ready()
            while !stage.isStopping { elsewhere.wait() }
            var items: [Int] = []
            while let item = try stage.pop() { items.append(item) }
            return items
        })
        try await pipeline.start()

        // When it is paused after the first item, and stopped after the second
        try await offPool { first.wait() }
        #expect(pipeline.pause())
        paused.open()
        try await offPool { second.wait() }
        #expect(pipeline.state == .paused)
        pipeline.stop()

        // Then the producer went on through the pause, seeing it, and the consumer, woken by the
        // stop, drained both items
        let items = try await pipeline.result()
        #expect(items == [0, -1])
        #expect(wakes.value >= 1 && !first.timedOut && !second.timedOut)
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

        // When the flag is set without a word to the pipeline, it goes unseen. (Time is the
        // subject here: nothing is to happen for 300 ms, so there is no event to wait for.)
        flag.add()
        try await Task.sleep(for: .milliseconds(300))
        #expect(woke.value == 0, "the producer polled its condition")

        // When the pipeline is paused and then woken, the producer wakes, looks, and waits
        // again: the pause still holds it
        let before = try threads.wakeups(threads.pair.producer)
        pipeline.pause()
        pipeline.wakeStages()
        #expect(try await poll(within: 120, every: 0.005) {
            try threads.wakeups(threads.pair.producer) > before && threads.isWaiting(threads.pair.producer)
        })
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

    /// Whether the thread named `name` is blocked in a wait (`S` in `/proc/self/task/*/stat`): a
    /// thread that runs, or was preempted, is `R`.
    func isWaiting(_ name: String) -> Bool {
        guard let task = task(named: name),
              let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(end, offsetBy: 2)...].hasPrefix("S")
    }

    /// How many times the thread named `name` has given up the CPU to wait
    /// (`voluntary_ctxt_switches`): each wait that ends counts one.
    func wakeups(_ name: String) throws -> Int {
        let found = self.task(named: name)
        let task = try #require(found, "no thread \(name)")
        let status = try String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") })
        return try #require(Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
    }

    private func task(named name: String) -> String? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.first { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == name
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
