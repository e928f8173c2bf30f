import Foundation

/// Plays one media file through PulseAudio: decode -> resample (+ gain) -> bounded queue ->
/// playback stream, as one ``MediaPipeline``; and a video's pictures in a window, in step with
/// its sound, when asked (``PlaybackOptions/showsVideo``).
///
/// The decoder thread probes and opens the file and runs ahead of the sink by a small queue; the
/// writer thread owns the PulseAudio stream. Pause is the pipeline's: it holds both threads, and
/// the writer's pause hook corks the stream (the sink goes quiet at once) and freezes the
/// position; a seek drops what was decoded ahead, flushes the stream and decodes again from the
/// new position; playing to the end drains the stream, so the last sample is heard. The position
/// in ``events`` is what the sink has played, not what was decoded. A file without an audio
/// stream plays its duration on the system's clock, in silence, without a sound server. The
/// pictures follow that same position (``VideoPlayback``). None of the calls block: the caller
/// never waits on audio.
public final class PlaybackManager: Sendable {
    /// The state, position and duration at least 10 times a second, and at once when the state
    /// changes; it finishes after the final event (completed or stopped), or when playback fails.
    ///
    /// It is the pipeline's one event stream: the position comes from a time event on the
    /// stream's mainloop (``PlaybackStream/reportPlayedTime(every:_:)``), the changes from the
    /// calls that make them, and every event passes through ``PlaybackControl``, which lets none
    /// follow the final one.
    public let events: AsyncStream<PlaybackEvent>
    /// The clip's length in seconds.
    public var duration: Double { control.duration }

    /// Why a video shows in no window although ``PlaybackOptions/showsVideo`` asked for one (no
    /// display, no SDL2, a display that refused or did not answer): the sound plays on. Nil when
    /// the window opened, or none was asked for; known once the playback has started. Later, why
    /// the window closed early: the display's connection was lost, which stopped the playback
    /// as closing the window does.
    public var videoProblem: CraveyError? { windowProblem.withLock { $0 } ?? video?.lostProblem }

    private let control: PlaybackControl
    private let pipeline: Stages
    /// The pictures, when a window was asked for.
    private let video: VideoPlayback?
    private let windowProblem = Locked<CraveyError?>(nil)
    /// What the library does once the playback has ended (counts the play), on a blocking thread.
    private let finishing: (@Sendable (PlaybackSummary) throws -> PlaybackSummary)?
    /// How the playback ended, once it has and ``finishing`` has run.
    private let outcome = Completion<PlaybackSummary>()

    /// How often ``events`` reports the position.
    static let eventInterval = 0.08

    /// Prepares to play `media`, `duration` seconds long (the library's value: it is not probed
    /// again), a video in a window titled `title` if the options ask; `finishing` runs once it
    /// has ended, before ``result()`` returns.
    package init(fileAt media: MediaLocation, duration: Double, title: String = "cravey", options: PlaybackOptions = PlaybackOptions(),
         finishing: (@Sendable (PlaybackSummary) throws -> PlaybackSummary)? = nil) {
        let duration = max(duration, 0)
        let control = PlaybackControl(start: min(max(options.start, 0), duration), duration: duration, speed: options.speed)
        self.control = control
        self.finishing = finishing
        pipeline = Stages(
            capacity: 16, threads: ("cravey.decoder", "cravey.player"),
            producer: { try Self.decode($0, media: media, gainDB: options.gainDB, control: control) },
            consumer: { try Self.play($0, sink: options.sink, control: control) })
        events = pipeline.events
        video = options.showsVideo ? VideoPlayback(media: media, title: title, control: control, keys: options.windowKeys) : nil
    }

    /// Opens the window (if asked for; see ``videoProblem``), the file and the playback stream,
    /// and starts playing. The window comes first, so the first picture shows before the sound
    /// starts.
    ///
    /// Throws ``CraveyError``: `.notFound` for a missing file, `.undecodableMedia` for one that is
    /// not media, `.unavailable` when no sound server answers or the sink does not exist.
    package func start() async throws {
        if let video {
            let problem = await video.start { [weak self] in self?.perform($0) }
            windowProblem.withLock { $0 = problem }
        }
        do {
            try await pipeline.start()
        } catch {
            // Closing the window on the way out: the start's error is the one that counts.
            _ = try? await video?.finish()
            outcome.resolve(.failure(error))
            throw error
        }
        // The end is awaited here, not by whoever calls result(): a play is counted whether or
        // not anyone waits for it.
        Task { [pipeline, video, finishing, outcome] in
            do {
                var summary: PlaybackSummary
                do {
                    summary = try await pipeline.result()
                } catch {
                    // Closing the window on the way out: the sound's error is the one that counts.
                    _ = try? await video?.finish()
                    throw error
                }
                if let counts = try await video?.finish() {
                    (summary.picturesShown, summary.picturesDropped) = counts
                }
                let ended = summary
                outcome.resolve(.success(try await onDedicatedThread(named: "cravey.count") { try finishing?(ended) ?? ended }))
            } catch {
                outcome.resolve(.failure(error))
            }
        }
    }

    /// Pauses: the stream is corked, so the sink goes quiet at once; decoding waits. When the
    /// sound server refuses the cork, the playback plays on and its events go on saying so.
    public func pause() {
        pipeline.pause()
        video?.wake()
    }

    /// Resumes where it paused.
    public func resume() {
        pipeline.resume()
        video?.wake()
    }

    /// Pauses when playing, resumes when paused.
    public func togglePause() {
        if pipeline.state == .paused { resume() } else { pause() }
    }

    /// Goes to `position` seconds (clamped to the clip); returns where it goes. Once stopping,
    /// the playback stays where it stopped.
    @discardableResult
    public func seek(to position: Double) -> Double {
        switch pipeline.state {
        case .stopping, .finished, .failed: return control.clamped(position)
        case .idle, .running, .paused: break
        }
        let target = control.seek(to: position)
        pipeline.wakeStages()
        video?.wake()
        return target
    }

    /// How fast it plays: 1 is the clip's own speed (see ``PlaybackOptions/speed``).
    public var speed: Double { control.speed }

    /// Plays on at `speed` (0.5 to 2, clamped; the pitch kept) from where it is, as mpv's `[`
    /// and `]` do; returns the speed. Once stopping, nothing changes.
    @discardableResult
    public func setSpeed(_ speed: Double) -> Double {
        switch pipeline.state {
        case .stopping, .finished, .failed: return control.speed
        case .idle, .running, .paused: break
        }
        let speed = control.changeSpeed(to: speed)
        pipeline.wakeStages()
        video?.wake()
        return speed
    }

    /// Skips forward (positive) or back (negative) by `seconds`, clamped to the clip.
    @discardableResult
    public func skip(by seconds: Double) -> Double {
        seek(to: control.event.position + seconds)
    }

    /// Where the playback is now.
    public var event: PlaybackEvent { control.event }

    /// Stops at once (the app's dismiss); ``result()`` then returns. Safe from any thread,
    /// a signal handler's queue included.
    public func stop() {
        pipeline.stop()
        video?.stop()
    }

    /// Does what a player's key asks (the terminal's or the window's).
    package func perform(_ command: PlayerCommand) {
        switch command {
        case .togglePause: togglePause()
        case .skip(let seconds): skip(by: seconds)
        case .seek(let fraction): seek(to: fraction * duration)
        case .toggleFullScreen: video?.toggleFullScreen()
        case .changeSpeed(let step): setSpeed(control.speed + step)
        case .resetSpeed: setSpeed(1)
        case .stop: stop()
        }
    }

    /// Waits for the playback to end, played to the end or stopped, and its play to be counted
    /// (unless it was a preview).
    public func result() async throws -> PlaybackSummary {
        guard pipeline.wasStarted else {
            throw CraveyError(.other, "This playback was never started.")
        }
        return try await outcome.value()
    }

    // MARK: - Stages

    private typealias Stages = MediaPipeline<Decoded, PlaybackSummary, PlaybackEvent>

    /// What the decoder hands the writer.
    private enum Decoded: Sendable {
        /// The decoder's first item: the format it converts to, which the writer opens the stream
        /// in; `silent` for a file without sound, which plays on the system's clock.
        case format(sampleRate: Int, channels: Int, silent: Bool)
        case chunk(Chunk)
    }

    /// Decoded samples of one generation (see ``PlaybackControl``), or its end.
    private struct Chunk: Sendable {
        enum Content: Sendable {
            /// Interleaved samples whose first plays at `start` seconds into the clip, each second
            /// of them `speed` seconds of it.
            case samples([Float], start: Double, speed: Double)
            case end
        }
        var generation: Int
        var content: Content
    }

    /// The stream's format: the clip's own rate, mono or stereo, so PulseAudio resamples only
    /// for the sink, if at all.
    private static func outputFormat(for audio: StreamInfo?) -> (sampleRate: Int, channels: Int) {
        (min(max(audio?.sampleRate ?? 48_000, 8_000), 192_000), min(max(audio?.channels ?? 1, 1), 2))
    }

    /// The decoder stage: probes and opens the file, hands the writer the format, then decodes
    /// from the requested position, converts to that format, applies the gain, and starts over at
    /// every seek. After the end it waits for a seek or a stop.
    private static func decode(_ stage: Stages.Producer, media: MediaLocation, gainDB: Double, control: PlaybackControl) throws {
        let audio = try MediaProbe.info(of: media).audioStream
        let format = outputFormat(for: audio)
        let gain = Float(pow(10, gainDB / 20))
        let source: SampleSource
        if let audio {
            source = try AudioDecoding(media: media, stream: audio.index,
                                       format: .floatInterleaved(sampleRate: format.sampleRate, channels: format.channels))
        } else {
            source = Silence(format: format, duration: control.duration)
        }
        guard try stage.push(.format(sampleRate: format.sampleRate, channels: format.channels, silent: audio == nil)) else { return }
        try stage.ready()
        var failure: (any Error)?
        while true {
            let (generation, target, speed) = control.seekRequest
            // At another speed, the samples go through a tempo stage of their own for this
            // generation; where they start is where the first of them went in.
            let tempo = speed == 1 ? nil : try Self.tempo(sampleRate: format.sampleRate, channels: format.channels, speed: speed)
            var firstStart: Double?
            /// Hands the writer samples ready to play (through the tempo stage already).
            func push(_ samples: [Float], start: Double) throws -> Bool {
                let start = firstStart ?? start
                firstStart = start
                guard !samples.isEmpty else { return true }
                var samples = samples
                Self.apply(gain, to: &samples)
                return try stage.push(.chunk(Chunk(generation: generation, content: .samples(samples, start: start, speed: speed))))
                    && stage.proceed()
            }
            var ended = try source.samples(from: target) { samples, start in
                guard control.isCurrent(generation) else { return false }
                do {
                    guard let tempo else { return try push(samples, start: start) }
                    return try push(try checked { () throws(FFmpegError) in try tempo.process(samples) }, start: start)
                } catch {
                    failure = error
                    return false
                }
            }
            if let failure { throw failure }
            if ended, let tempo {
                // What the tempo stage still holds is the clip's last samples.
                let rest = try Self.checked { () throws(FFmpegError) in try tempo.finish() }
                if !rest.isEmpty, control.isCurrent(generation) { ended = try push(rest, start: target) }
            }
            if ended {
                guard try stage.push(.chunk(Chunk(generation: generation, content: .end))) else { return }
                // Asleep until a seek (which wakes the stages), a stop or a failure.
                guard try stage.wait(until: { !control.isCurrent(generation) }) else { return }
            }
            guard try stage.proceed() else { return }
        }
    }

    /// A tempo stage (``AudioTempo``); libavfilter missing or refusing is `.unavailable`.
    private static func tempo(sampleRate: Int, channels: Int, speed: Double) throws -> AudioTempo {
        try checked { () throws(FFmpegError) in try AudioTempo(sampleRate: sampleRate, channels: channels, speed: speed) }
    }

    /// Runs a tempo stage's step; its failure says what could not play at another speed.
    private static func checked<T>(_ body: () throws(FFmpegError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CraveyError(.unavailable, "Cannot play at another speed: FFmpeg's atempo filter failed (\(error.message)). libavfilter is needed for it (`scripts/setup` installs it).")
        }
    }

    /// Multiplies by `gain` and clamps to full scale, so no sample ever leaves beyond it.
    static func apply(_ gain: Float, to samples: inout [Float]) {
        samples.withUnsafeMutableBufferPointer { samples in
            for index in samples.indices { samples[index] = min(max(samples[index] * gain, -1), 1) }
        }
    }

    /// The writer stage: opens the stream in the decoder's format (or the system's clock, for a
    /// file without sound) and owns it; writes the current generation's samples, flushes at a
    /// seek, drains at the end. It corks the stream at the pipeline's pause, and reports the
    /// position from the stream's mainloop.
    private static func play(_ stage: Stages.Consumer, sink: String?, control: PlaybackControl) throws -> PlaybackSummary {
        guard case .format(let sampleRate, let channels, let silent)? = try stage.pop() else { return control.finish(completed: false) }
        let stream: any SoundOutput
        do {
            stream = silent ? SilentOutput(sampleRate: sampleRate, channels: channels)
                : try PlaybackStream(sink: sink, sampleRate: sampleRate, channels: channels)
        } catch {
            throw CraveyError.soundServer(error, sink: sink)
        }
        control.attach(stream) { stage.emit($0) }
        defer { control.detach() }
        stage.onPauseChange { paused in try control.pauseChanged(paused) }
        // A stop or a seek wakes the writer where it waits on the stream (a write, the drain).
        stage.onWake { stream.wakeUp() }
        try stage.ready()
        stream.reportPlayedTime(every: eventInterval) { control.report(playedTime: $0) }
        var playing: Int?
        var flushed = 0
        var streamTime = 0.0
        do {
            /// Flushes once for the newest generation, ending the segment that played until now.
            func flush(for generation: Int) throws {
                guard flushed != generation else { return }
                control.closeSegment()
                streamTime = try stream.flush()
                flushed = generation
            }
            while let item = try stage.pop() {
                guard !stage.isStopping else { break }
                guard case .chunk(let chunk) = item else { continue }
                let current = control.seekRequest.generation
                guard chunk.generation == current else {
                    try flush(for: current)
                    continue
                }
                if playing != current {
                    if playing != nil { try flush(for: current) }
                    if case .samples(_, let start, let speed) = chunk.content {
                        control.openSegment(generation: current, start: start, streamTime: streamTime, speed: speed)
                    }
                    playing = current
                }
                switch chunk.content {
                case .samples(let samples, _, _):
                    _ = try stream.write(samples) { control.isCurrent(current) && !stage.isStopping }
                    try stage.waitWhilePaused()
                case .end:
                    if try stream.drain(while: { control.isCurrent(current) && !stage.isStopping }) {
                        return control.finish(completed: true)
                    }
                }
            }
        } catch let error as PulseAudioError {
            throw CraveyError.soundServer(error, sink: sink)
        }
        return control.finish(completed: false)
    }
}
