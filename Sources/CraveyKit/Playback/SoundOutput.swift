import Foundation

/// Where the player's writer stage sends samples, and the clock its position reads: a PulseAudio
/// stream (``PlaybackStream``), or for a clip without sound the system's clock (``SilentOutput``).
protocol SoundOutput: AnyObject, Sendable {
    /// Queues samples, waiting while enough are queued; false when `keepGoing` said no first.
    func write(_ samples: [Float], while keepGoing: () -> Bool) throws -> Bool
    /// Pauses (`true`) or resumes the clock and what it plays.
    func cork(_ paused: Bool) throws
    /// Drops what is queued; returns the time at which the next written sample plays.
    func flush() throws -> Double
    /// Waits until everything written has played; false when `keepGoing` said no first.
    func drain(while keepGoing: () -> Bool) throws -> Bool
    /// Seconds played so far (not going back, standing still while corked); nil while unknown.
    var playedTime: Double? { get }
    /// Calls `body` with ``playedTime`` at once and every `interval` seconds after, until the
    /// output is freed.
    func reportPlayedTime(every interval: Double, _ body: @escaping @Sendable (Double?) -> Void)
    /// Wakes a ``write(_:while:)`` or ``drain(while:)`` to ask its `keepGoing` again.
    func wakeUp()
}

extension PlaybackStream: SoundOutput {}

/// The clock of a clip without sound (a video without an audio track): the system's, as ffplay
/// and mpv use when there is no audio. What the writer writes is timed, not heard, as if by a
/// sink that plays in real time and keeps 2 s queued; pause, seek and the end behave as a
/// stream's do, and no sound server is needed.
final class SilentOutput: SoundOutput {
    private let timeline = Timeline()
    private let sampleRate: Double
    private let channels: Int

    init(sampleRate: Int, channels: Int) {
        self.sampleRate = Double(sampleRate)
        self.channels = channels
    }

    /// Ends the reports of ``reportPlayedTime(every:_:)``.
    deinit { timeline.close() }

    func write(_ samples: [Float], while keepGoing: () -> Bool) -> Bool {
        timeline.write(Double(samples.count / channels) / sampleRate, while: keepGoing)
    }

    func cork(_ paused: Bool) { timeline.cork(paused) }
    func flush() -> Double { timeline.flush() }
    func drain(while keepGoing: () -> Bool) -> Bool { timeline.drain(while: keepGoing) }
    var playedTime: Double? { timeline.played }
    func wakeUp() { timeline.wakeUp() }

    /// The reports come from a thread of their own, which ends once the output is freed.
    func reportPlayedTime(every interval: Double, _ body: @escaping @Sendable (Double?) -> Void) {
        DedicatedThread.start(named: "cravey.clock") { [timeline] in
            while let played = timeline.played(waitingFirst: interval) { body(played) }
        }.detach()
    }
}

/// The silent output's clock: seconds written and played, on the system's monotonic clock.
// @unchecked Sendable: every `var` is read and written with `condition` locked.
private final class Timeline: @unchecked Sendable {
    private let condition = NSCondition()
    /// When ``base`` was played; nil while corked, or before the first write.
    private var origin: ContinuousClock.Instant?
    private var base = 0.0
    private var written = 0.0
    private var started = false
    private var corked = false
    private var closed = false
    private var reported = false
    /// How far the writer may be ahead of what has played, as the stream keeps 2 s at the server.
    private let queued = 2.0

    var played: Double { locked { playedNow() } }

    func write(_ seconds: Double, while keepGoing: () -> Bool) -> Bool {
        locked {
            if !started {
                started = true
                if !corked { origin = .now }
            }
            while written - playedNow() > queued {
                guard keepGoing() else { return false }
                wait(for: written - playedNow() - queued)
            }
            written += seconds
            return true
        }
    }

    func cork(_ paused: Bool) {
        locked {
            if paused {
                base = playedNow()
                origin = nil
            } else if started {
                origin = .now
            }
            corked = paused
            condition.broadcast()
        }
    }

    func flush() -> Double {
        locked {
            base = playedNow()
            if origin != nil { origin = .now }
            written = base
            condition.broadcast()
            return written
        }
    }

    func drain(while keepGoing: () -> Bool) -> Bool {
        locked {
            while playedNow() < written {
                guard keepGoing() else { return false }
                wait(for: written - playedNow())
            }
            return true
        }
    }

    func wakeUp() { locked { condition.broadcast() } }

    func close() {
        locked {
            closed = true
            condition.broadcast()
        }
    }

    /// The time played, after waiting `interval` seconds unless this is the first report; nil
    /// once closed.
    func played(waitingFirst interval: Double) -> Double? {
        locked {
            let deadline = Date(timeIntervalSinceNow: reported ? interval : 0)
            reported = true
            while !closed, condition.wait(until: deadline) {}
            return closed ? nil : playedNow()
        }
    }

    // MARK: - With `condition` locked

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    private func playedNow() -> Double {
        guard let origin else { return base }
        return base + (ContinuousClock.now - origin) / .seconds(1)
    }

    /// Waits `seconds`, or until signalled; while corked, only until signalled.
    private func wait(for seconds: Double) {
        if corked { condition.wait() } else { _ = condition.wait(until: Date(timeIntervalSinceNow: max(seconds, 0.001))) }
    }
}
