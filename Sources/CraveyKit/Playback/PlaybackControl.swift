/// What the person asks of a playback (a seek) and what it has played, shared by the
/// caller's threads, the decoder (producer), the PulseAudio writer (consumer) and the stream's
/// mainloop; and the one door to the playback's events.
///
/// A seek is a new *generation*: the decoder seeks and tags what it decodes after with it, and
/// the writer drops whatever is older, flushes the stream and starts a new *segment*: the clip
/// position its first sample has, and the stream time (``PlaybackStream/playedTime``) at which
/// it plays. The position is the segment's start plus what the sink has played of it.
///
/// The pause and the stop belong to the pipeline (``MediaPipeline/pause()``,
/// ``MediaPipeline/stop()``): the writer's pause hook calls ``pauseChanged(_:)``, which corks the
/// stream and freezes the position here, and the stages ask the pipeline whether to stop.
///
/// Every event is emitted with this lock held, after a check that the playback has not ended:
/// so the final event (``finish(completed:)``) is the last one, whichever thread emits the others.
///
/// Lock order: the stream's mainloop lock (a writer's `keepGoing`, the stream's reports) or the
/// pipeline's lock (the decoder's wait) may be held when this lock is taken, never the other way
/// round: nothing here calls the stream or the pipeline with the lock held. Emitting only yields
/// to an `AsyncStream`.
final class PlaybackControl: Sendable {
    private struct Segment {
        var generation: Int
        var start: Double
        var streamTime: Double
        /// Clip seconds a second of the stream plays (``AudioTempo``).
        var speed: Double
        /// The latest stream time read: the server's timing can be briefly unknown (after a write
        /// or a flush), and the position must not go back meanwhile.
        var lastPlayed: Double
    }

    private struct State {
        var generation = 0
        var seekTarget: Double
        /// The speed the current generation is decoded at.
        var speed: Double
        var segment: Segment?
        var listened = 0.0
        /// The position while paused, frozen at the pause (or moved by a seek): PulseAudio 16's
        /// interpolated stream time runs on while the stream is corked (and stands still after the
        /// uncork until it is right again). Set by the pipeline's pause hook only.
        var pausedAt: Double?
        /// How far the current segment had played when the pause began: what it adds to the
        /// seconds listened if it ends while paused (a seek does not move it).
        var segmentPausedAt: Double?
        var stream: (any SoundOutput)?
        /// Where events go while the writer runs (the pipeline's event stream).
        var emit: (@Sendable (PlaybackEvent) -> Void)?
        var ended: PlaybackEvent?
    }

    let duration: Double
    private let state: Locked<State>

    init(start: Double, duration: Double, speed: Double = 1) {
        self.duration = duration
        state = Locked(State(seekTarget: start, speed: Self.clamped(speed: speed)))
    }

    // MARK: - The caller's side

    /// Asks for a seek and emits the event; returns the clamped position.
    ///
    /// The caller also wakes the pipeline's stages (``MediaPipeline/wakeStages()``): a decoder
    /// waiting at the end decodes again, and the writer, waiting on its stream, drops what it
    /// writes.
    @discardableResult
    func seek(to position: Double) -> Double {
        let target = clamped(position)
        state.withLock { state in
            guard state.ended == nil else { return }
            state.generation += 1
            state.seekTarget = target
            if state.pausedAt != nil { state.pausedAt = target }
            emit(&state, playedTime: nil)
        }
        return target
    }

    /// `position` within the clip.
    func clamped(_ position: Double) -> Double {
        min(max(position, 0), duration)
    }

    /// `speed` within ``AudioTempo/speeds``, to the nearest hundredth (1 for one that is no number).
    static func clamped(speed: Double) -> Double {
        guard speed.isFinite else { return 1 }
        return (min(max(speed, AudioTempo.speeds.lowerBound), AudioTempo.speeds.upperBound) * 100).rounded() / 100
    }

    /// Plays on at `speed` (clamped) from where the sink is: a new generation, as a seek, so
    /// the decoder starts again there through a tempo stage of that speed (the caller wakes the
    /// pipeline's stages, as for a seek). Emits the event; returns the speed.
    @discardableResult
    func changeSpeed(to speed: Double) -> Double {
        let speed = Self.clamped(speed: speed)
        let stream = state.withLock { $0.stream }
        let playedTime = stream?.playedTime
        state.withLock { state in
            guard state.ended == nil, speed != state.speed else { return }
            let here = event(&state, playedTime: playedTime).position
            state.generation += 1
            state.seekTarget = here
            state.speed = speed
            if state.pausedAt != nil { state.pausedAt = here }
            emit(&state, playedTime: nil)
        }
        return speed
    }

    /// The speed the playback plays at.
    var speed: Double { state.withLock { $0.speed } }

    /// The event describing now. Not on the stream's mainloop thread (it reads the stream).
    var event: PlaybackEvent {
        let stream = state.withLock { $0.stream }
        let playedTime = stream?.playedTime
        return state.withLock { event(&$0, playedTime: playedTime) }
    }

    // MARK: - The stages' side

    /// The generation to decode, where it starts and at which speed.
    var seekRequest: (generation: Int, position: Double, speed: Double) {
        state.withLock { ($0.generation, $0.seekTarget, $0.speed) }
    }

    /// True while `generation` is the latest.
    func isCurrent(_ generation: Int) -> Bool {
        state.withLock { $0.generation == generation }
    }

    /// The writer's stream, and where the events go, until ``detach()``.
    func attach(_ stream: any SoundOutput, emit: @escaping @Sendable (PlaybackEvent) -> Void) {
        state.withLock { state in
            state.stream = stream
            state.emit = emit
        }
    }

    /// What the pipeline's pause (`true`) and resume (`false`) do at the stream: a pause corks
    /// the stream, so the sink goes quiet at once, and freezes the position; a resume uncorks it
    /// and lets the position go on. Emits the event either way.
    ///
    /// Throws when the stream refuses: nothing changed then (the sink plays on, or stays quiet),
    /// and the pipeline's pause does not happen either, so the events go on saying what the
    /// sink does. The corresponding C function is `pa_stream_cork`.
    func pauseChanged(_ paused: Bool) throws {
        guard let stream = state.withLock({ $0.ended == nil ? $0.stream : nil }) else { return }
        if paused {
            // Read before the cork: the cork's round trip takes time the sink does not play.
            let playedTime = stream.playedTime
            try stream.cork(true)
            state.withLock { state in
                state.pausedAt = position(&state, playedTime: playedTime)
                state.segmentPausedAt = state.segment == nil ? nil : position(&state, playedTime: playedTime, ignoringSeeks: true)
                emit(&state, playedTime: playedTime)
            }
        } else {
            try stream.cork(false)
            let playedTime = stream.playedTime
            state.withLock { state in
                state.pausedAt = nil
                state.segmentPausedAt = nil
                emit(&state, playedTime: playedTime)
            }
        }
    }

    /// Emits the event for `playedTime` (the stream's report, on its mainloop thread).
    func report(playedTime: Double?) {
        state.withLock { emit(&$0, playedTime: playedTime) }
    }

    /// Adds what the sink played of the current segment to the seconds listened, and ends it:
    /// up to `end` (the clip's end, which a completed play's drain has heard), else up to where
    /// the sink is, or where a pause froze it (the stream time runs on while corked).
    func closeSegment(reaching end: Double? = nil) {
        let stream = state.withLock { $0.stream }
        let playedTime = stream?.playedTime
        state.withLock { state in
            guard let segment = state.segment else { return }
            let reached = end ?? state.segmentPausedAt ?? position(&state, playedTime: playedTime, ignoringSeeks: true)
            state.listened += max(min(reached, duration) - segment.start, 0)
            state.segment = nil
            state.segmentPausedAt = nil
        }
    }

    /// Starts a segment: `generation`'s first sample is clip position `start`, played at
    /// `streamTime`, and each second of the stream plays `speed` seconds of the clip.
    func openSegment(generation: Int, start: Double, streamTime: Double, speed: Double) {
        state.withLock { $0.segment = Segment(generation: generation, start: start, streamTime: streamTime, speed: speed, lastPlayed: streamTime) }
    }

    /// Ends the playback: closes the segment, emits the final event (completed, or stopped where
    /// it stood), the last one, and returns the summary (the whole clip for a completed one).
    func finish(completed: Bool) -> PlaybackSummary {
        let position = completed ? duration : event.position
        // A completed play was heard to its last sample (the drain waited for it), however far
        // behind a sink's clock reported it: its last segment reaches the end.
        closeSegment(reaching: completed ? duration : nil)
        return state.withLock { state in
            let final = PlaybackEvent(state: completed ? .completed : .stopped, position: position, duration: duration, speed: state.speed)
            state.emit?(final)
            state.ended = final
            state.stream = nil
            state.emit = nil
            return PlaybackSummary(secondsListened: state.listened, completed: completed, position: position)
        }
    }

    /// Forgets the stream and the events' way out, once the writer has ended.
    func detach() {
        state.withLock { state in
            state.stream = nil
            state.emit = nil
        }
    }

    // MARK: - With the lock held

    private func event(_ state: inout State, playedTime: Double?) -> PlaybackEvent {
        if let ended = state.ended { return ended }
        if let pausedAt = state.pausedAt {
            return PlaybackEvent(state: .paused, position: pausedAt, duration: duration, speed: state.speed)
        }
        return PlaybackEvent(state: .playing, position: position(&state, playedTime: playedTime), duration: duration, speed: state.speed)
    }

    /// Emits the event describing now, unless the playback has ended.
    private func emit(_ state: inout State, playedTime: Double?) {
        guard state.ended == nil, let emit = state.emit else { return }
        emit(event(&state, playedTime: playedTime))
    }

    private func position(_ state: inout State, playedTime: Double?, ignoringSeeks: Bool = false) -> Double {
        guard var segment = state.segment, ignoringSeeks || segment.generation == state.generation else {
            return state.seekTarget
        }
        segment.lastPlayed = max(segment.lastPlayed, playedTime ?? segment.lastPlayed)
        state.segment = segment
        return min(segment.start + (segment.lastPlayed - segment.streamTime) * segment.speed, duration)
    }
}
