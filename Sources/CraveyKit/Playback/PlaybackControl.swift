/// What the person asks of a playback (seek, pause, stop) and what it has played, shared by the
/// caller's threads, the decoder (producer) and the PulseAudio writer (consumer).
///
/// A seek is a new *generation*: the decoder seeks and tags what it decodes after with it, and
/// the writer drops whatever is older, flushes the stream and starts a new *segment*: the clip
/// position its first sample has, and the stream time (``PlaybackStream/playedTime``) at which
/// it plays. The position is the segment's start plus what the sink has played of it.
///
/// Lock order: the stream's mainloop lock may be held when this lock is taken (a writer's
/// `keepGoing`), never the other way round: nothing here calls the stream with the lock held.
final class PlaybackControl: Sendable {
    private struct Segment {
        var generation: Int
        var start: Double
        var streamTime: Double
        /// The latest stream time read: the server's timing can be briefly unknown (after a write
        /// or a flush), and the position must not go back meanwhile.
        var lastPlayed: Double
    }

    private struct State {
        var generation = 0
        var seekTarget: Double
        var segment: Segment?
        var listened = 0.0
        var paused = false
        /// Where a pause froze the position: PulseAudio 16's interpolated stream time runs on
        /// while the stream is corked (and stands still after the uncork until it is right again).
        var pausedAt: Double?
        var stopping = false
        var stream: PlaybackStream?
        var ended: PlaybackEvent?
    }

    let duration: Double
    private let state: Locked<State>

    init(start: Double, duration: Double) {
        self.duration = duration
        state = Locked(State(seekTarget: start))
    }

    // MARK: - The caller's side

    /// Asks for a seek; returns the clamped position.
    @discardableResult
    func seek(to position: Double) -> Double {
        let target = min(max(position, 0), duration)
        let stream = state.withLock { state -> PlaybackStream? in
            guard state.ended == nil, !state.stopping else { return nil }
            state.generation += 1
            state.seekTarget = target
            return state.stream
        }
        stream?.wakeUp()
        return target
    }

    /// Asks the writer to stop at once (the caller also stops the pipeline).
    func stop() {
        let stream = state.withLock { state in
            state.stopping = true
            return state.stream
        }
        stream?.wakeUp()
    }

    /// Marks the playback paused, freezing its position; returns the stream to cork, nil when
    /// nothing changed.
    func pause() -> PlaybackStream? {
        let position = event.position
        return state.withLock { state in
            guard !state.paused, state.ended == nil, !state.stopping else { return nil }
            state.paused = true
            state.pausedAt = position
            return state.stream
        }
    }

    /// Marks the playback playing again; returns the stream to uncork, nil when nothing changed.
    func beginResume() -> PlaybackStream? {
        state.withLock { state in
            guard state.paused, state.ended == nil, !state.stopping else { return nil }
            return state.stream
        }
    }

    /// Ends a pause once the stream is uncorked.
    func endPause() {
        state.withLock { state in
            state.paused = false
            state.pausedAt = nil
        }
    }

    /// The event describing now.
    var event: PlaybackEvent {
        let stream = state.withLock { $0.stream }
        let playedTime = stream?.playedTime
        return state.withLock { state in
            if let ended = state.ended { return ended }
            if state.paused, let pausedAt = state.pausedAt, state.segment?.generation == state.generation {
                return PlaybackEvent(state: .paused, position: pausedAt, duration: duration)
            }
            return PlaybackEvent(state: state.paused ? .paused : .playing,
                                 position: position(&state, playedTime: playedTime), duration: duration)
        }
    }

    // MARK: - The stages' side

    /// The generation to decode and where it starts.
    var seekRequest: (generation: Int, position: Double) {
        state.withLock { ($0.generation, $0.seekTarget) }
    }

    /// True while `generation` is the latest and no stop was asked.
    func isCurrent(_ generation: Int) -> Bool {
        state.withLock { $0.generation == generation && !$0.stopping }
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    func attach(_ stream: PlaybackStream) {
        state.withLock { $0.stream = stream }
    }

    /// Adds what the sink played of the current segment to the seconds listened, and ends it.
    func closeSegment() {
        let stream = state.withLock { $0.stream }
        let playedTime = stream?.playedTime
        state.withLock { state in
            guard let segment = state.segment else { return }
            state.listened += max(position(&state, playedTime: playedTime, ignoringSeeks: true) - segment.start, 0)
            state.segment = nil
        }
    }

    /// Starts a segment: `generation`'s first sample is clip position `start`, played at `streamTime`.
    func openSegment(generation: Int, start: Double, streamTime: Double) {
        state.withLock { $0.segment = Segment(generation: generation, start: start, streamTime: streamTime, lastPlayed: streamTime) }
    }

    /// Ends the playback: closes the segment and returns the summary (the whole clip for a completed one).
    func finish(completed: Bool) -> PlaybackSummary {
        let position = completed ? duration : event.position
        closeSegment()
        return state.withLock { state in
            state.ended = PlaybackEvent(state: completed ? .completed : .stopped, position: position, duration: duration)
            state.stream = nil
            return PlaybackSummary(secondsListened: state.listened, completed: completed, position: position)
        }
    }

    /// Forgets the stream, so nobody reaches it once the pipeline has failed.
    func detach() {
        state.withLock { $0.stream = nil }
    }

    private func position(_ state: inout State, playedTime: Double?, ignoringSeeks: Bool = false) -> Double {
        guard var segment = state.segment, ignoringSeeks || segment.generation == state.generation else {
            return state.seekTarget
        }
        segment.lastPlayed = max(segment.lastPlayed, playedTime ?? segment.lastPlayed)
        state.segment = segment
        return min(segment.start + segment.lastPlayed - segment.streamTime, duration)
    }
}
