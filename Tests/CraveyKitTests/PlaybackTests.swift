import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// Plays real files through a real PulseAudio null sink and records its monitor as the witness.
// Serialized: each test plays in real time, and a 2-core machine running them all at once
// measures its scheduler (underruns), not the player.
@Suite("Playback through PulseAudio", .temporaryFiles, .serialized)
struct PlaybackTests {
    /// Plays `url` into `sink` to the end (or until `control` returns), capturing the sink's monitor.
    func play(_ url: URL, duration: Double, sink: VirtualMicrophone, options: PlaybackOptions = PlaybackOptions(),
              rate: Double = Witness.analysisRate,
              control: @escaping @Sendable (PlaybackManager) async throws -> Void = { _ in })
        async throws -> (summary: PlaybackSummary, samples: [Float], wall: Double, events: [PlaybackEvent]) {
        var options = options
        options.sink = sink.sinkName
        let capture = try await SinkCapture.start(sink: sink.sinkName, rate: rate)
        let manager = PlaybackManager(fileAt: .outside(url), duration: duration, options: options)
        let started = ContinuousClock.now
        try await manager.start()
        let collector = Task { await manager.events.reduce(into: [PlaybackEvent]()) { $0.append($1) } }
        try await control(manager)
        let summary = try await manager.result()
        let wall = (ContinuousClock.now - started) / .seconds(1)
        let events = await collector.value
        return (summary, try await offPool { try capture.stop() }, wall, events)
    }

    /// Waits until the manager's position reaches `position`.
    func wait(_ manager: PlaybackManager, until position: Double) async throws {
        let reached = try await poll(within: 30, every: 0.01) { manager.event.position >= position }
        #expect(reached, "the position did not reach \(position)")
    }

    @Test("a 2 s clip of 440 Hz comes out of the sink at 440 Hz for 2 s +/- 0.2 s, and completes")
    func playsTone() async throws {
        // Given a 2 s tone
        let sink = try await VirtualMicrophone()
        let clip = try await Fixture.tones([(440, 2)])

        // When it plays to the end
        let (summary, samples, _, events) = try await play(clip, duration: 2, sink: sink)

        // Then the sink played 2 s of 440 Hz, and the events said so at least 10 times a second
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        #expect(sounding.count == 1 && sounding.allSatisfy { $0.frequency == 440 }, "\(sounding)")
        #expect(abs(sounding.reduce(0) { $0 + $1.duration } - 2) <= 0.2, "\(sounding)")
        #expect(abs(Witness.dominantFrequency(samples) - 440) <= 5)
        #expect(summary.completed && abs(summary.secondsListened - 2) <= 0.2, "\(summary)")
        #expect(events.last?.state == .completed && events.last?.position == 2)
        #expect(events.filter { $0.state == .playing }.count >= 15, "\(events.count) events for 2 s")
    }

    @Test("started at 15 s, a tone change at 20 s comes after 5 s +/- 0.3 s")
    func startsAt() async throws {
        // Given 440 Hz for 20 s, then 880 Hz
        let sink = try await VirtualMicrophone()
        let clip = try await Fixture.tones([(440, 20), (880, 2)])

        // When played from 15 s
        let (summary, samples, _, _) = try await play(clip, duration: 22, sink: sink, options: PlaybackOptions(start: 15))

        // Then 5 s of 440 Hz come first, then 2 s of 880 Hz
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        #expect(sounding.map(\.frequency) == [440, 880], "\(sounding)")
        #expect(abs(sounding[0].duration - 5) <= 0.3, "\(sounding)")
        #expect(abs(sounding[1].duration - 2) <= 0.3, "\(sounding)")
        #expect(summary.completed && abs(summary.secondsListened - 7) <= 0.3, "\(summary)")
    }

    @Test("a skip back of 15 s from 18 s plays the span at 3 s again: exactly its 1 s of 660 Hz, then 440 Hz")
    func skipsBack() async throws {
        // Given 440 Hz, 660 Hz from 3 s to 4 s, 440 Hz again to 16 s, then 880 Hz to 20 s
        let sink = try await VirtualMicrophone()
        let clip = try await Fixture.tones([(440, 3), (660, 1), (440, 12), (880, 4)])

        // When played from 16 s and skipped back at 18 s, then stopped at 4.5 s
        let (summary, samples, _, _) = try await play(clip, duration: 20, sink: sink, options: PlaybackOptions(start: 16)) { manager in
            try await wait(manager, until: 18)
            let target = manager.skip(by: -15)
            #expect(abs(target - 3) < 0.1)
            try await wait(manager, until: 4.5)
            manager.stop()
        }

        // Then 880 Hz, then the whole second of 660 Hz at 3 s, then 440 Hz. (The 880 Hz span is
        // not measured: a null sink may mix a new stream's first second late, and the recording
        // of its monitor may start after that.)
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 660, 880]))
        #expect(sounding.map(\.frequency) == [880, 660, 440], "\(sounding)")
        guard sounding.count == 3 else { return }
        #expect(abs(sounding[1].duration - 1) <= 0.15, "\(sounding)")
        #expect(!summary.completed && abs(summary.secondsListened - 3.5) <= 0.4, "\(summary)")
    }

    @Test("a pause of 2 s holds the position and grows the playback by 2 s; resuming continues without gap or repeat")
    func pausesAndResumes() async throws {
        // Given 2 s of 440 Hz then 2 s of 880 Hz
        let sink = try await VirtualMicrophone()
        let clip = try await Fixture.tones([(440, 2), (880, 2)])
        let pause = Locked<(at: Double, from: ContinuousClock.Instant, to: ContinuousClock.Instant)?>(nil)

        // When paused at 1 s for 2 s
        let (summary, samples, wall, events) = try await play(clip, duration: 4, sink: sink) { manager in
            try await wait(manager, until: 1)
            manager.pause()
            let (at, from) = (manager.event.position, ContinuousClock.now)
            // Time is the subject: the playback is to take the 2 s paused longer.
            try await Task.sleep(for: .seconds(2))
            pause.withLock { $0 = (at, from, ContinuousClock.now) }
            manager.resume()
        }

        // Then the position stood still while paused, the playback took 2 s longer than the clip,
        // and the sink played each tone for its length: a gap or a repeat of more than one buffer
        // would show. (Where the silence falls in the monitor's recording is the null sink's
        // business: with another stream running it mixes a new one's audio up to 2 s late.)
        let paused = try #require(pause.withLock { $0 })
        let during = events.filter { $0.state == .paused }
        #expect(during.count >= 15, "\(during.count) events while paused")
        #expect(during.allSatisfy { abs($0.position - paused.at) <= 0.05 }, "\(during.map(\.position))")
        // (The wall time includes opening the file and the stream and the drain at the end: up to
        // two seconds more on a loaded machine. The paused events below show the 2 s themselves.)
        #expect(wall >= 5.7 && wall <= 8.5, "wall \(wall)")
        let sounding = ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440, 880]))
        let played = { (frequency: Double) in sounding.filter { $0.frequency == frequency }.reduce(0) { $0 + $1.duration } }
        #expect(abs(played(440) - 2) <= 0.1 && abs(played(880) - 2) <= 0.1, "\(sounding)")
        #expect(sounding.first?.frequency == 440 && sounding.last?.frequency == 880, "\(sounding)")
        #expect(summary.completed && abs(summary.secondsListened - 4) <= 0.2, "\(summary)")
    }

    @Test("a pause is quiet at the sink within 100 ms of the request")
    func pauseIsQuiet() async throws {
        // Given a 6 s tone playing, and the sink's monitor recorded as it plays
        let sink = try await VirtualMicrophone()
        let clip = try await Fixture.tones([(440, 6)])
        let capture = try await SinkCapture.start(sink: sink.sinkName)
        let manager = PlaybackManager(fileAt: .outside(clip), duration: 6, options: PlaybackOptions(sink: sink.sinkName))
        try await manager.start()
        // (A null sink's monitor may hand out nothing for the first second of a new stream;
        // the pause must fall where the recording keeps pace with the sink.)
        let flowing = try await poll(within: 5, every: 0.01) { try capture.heard() >= 0.5 }
        #expect(flowing, "the sink's monitor carried no tone")

        // When paused, noting how much of the monitor had been recorded at the request, then
        // stopped once 1 s more of the monitor is recorded
        let requested = capture.recorded
        manager.pause()
        #expect(try await poll(within: 30, every: 0.01) { capture.recorded >= requested + Int(Witness.analysisRate) })
        manager.stop()
        _ = try await manager.result()
        let samples = try await offPool { try capture.stop() }

        // Then the monitor goes quiet (20 ms below 1% of full scale) within 100 ms of the
        // request. The monitor hands out what the sink mixes as it mixes it, so this is the time
        // until the server stops mixing the stream; a sound card plays that a buffer later, but a
        // cork rewinds the card's buffer, so it falls quiet as soon. The recorder's own lag (one
        // 20 ms fragment) only makes the measured time longer.
        let rate = Witness.analysisRate
        let window = Int(rate * 0.02)
        #expect(requested > 0 && requested < samples.count, "\(requested) of \(samples.count) samples")
        #expect(samples[..<requested].suffix(window).contains { abs($0) > 0.1 }, "the tone was not playing at the pause")
        var quiet = requested
        while quiet + window <= samples.count, samples[quiet..<quiet + window].contains(where: { abs($0) >= 0.01 }) {
            quiet += 1
        }
        let delay = Double(quiet - requested) / rate
        #expect(delay <= 0.1, "quiet \(Int(delay * 1000)) ms after the pause")
    }

    @Test("position events come from the stream's mainloop, not a thread of their own: at least 10 a second playing, and paused")
    func eventsFromTheMainloop() async throws {
        // Given a 6 s tone playing, its events collected with the time they arrive
        let sink = try await VirtualMicrophone()
        let clip = try await Fixture.tones([(440, 6)])
        let manager = PlaybackManager(fileAt: .outside(clip), duration: 6, options: PlaybackOptions(sink: sink.sinkName))
        try await manager.start()
        let arrivals = Locked<[(at: ContinuousClock.Instant, event: PlaybackEvent)]>([])
        let collector = Task { for await event in manager.events { arrivals.withLock { $0.append((.now, event)) } } }
        try await wait(manager, until: 0.5)

        // Then no thread of the process is there for the events
        #expect(!ProcessThreads.names().contains("cravey.events"), "\(ProcessThreads.names())")

        // When it plays for 1 s, then is paused for 1 s, then stopped (time is the subject: the
        // events are counted in each second)
        let playing = ContinuousClock.now
        try await Task.sleep(for: .seconds(1))
        manager.pause()
        let paused = ContinuousClock.now
        try await Task.sleep(for: .seconds(1))
        let stopped = ContinuousClock.now
        manager.stop()
        _ = try await manager.result()
        await collector.value

        // Then at least 10 events arrived in each second, each saying what the playback did, and
        // the stopped event came last
        let events = arrivals.withLock { $0 }
        let count = { (from: ContinuousClock.Instant, to: ContinuousClock.Instant, state: PlaybackState) in
            events.filter { $0.at >= from && $0.at < to && $0.event.state == state }.count
        }
        #expect(count(playing, paused, .playing) >= 10, "\(count(playing, paused, .playing)) events while playing")
        #expect(count(paused, stopped, .paused) >= 10, "\(count(paused, stopped, .paused)) events while paused")
        #expect(events.last?.event.state == .stopped)
    }

    @Test("a decoder at the clip's end sleeps until a seek or a stop: it does not wake in 1 s, and a seek back wakes it")
    func decoderSleepsAtTheEnd() async throws {
        // Given a 5 s tone playing: once 3.3 s have played, everything is decoded (2 s are queued
        // at the server and 16 chunks between the threads), and the decoder waits at the end
        let sink = try await VirtualMicrophone()
        let clip = try await Fixture.tones([(440, 5)])
        let manager = PlaybackManager(fileAt: .outside(clip), duration: 5, options: PlaybackOptions(sink: sink.sinkName))
        try await manager.start()
        try await wait(manager, until: 3.3)
        let decoder = try #require(ProcessThreads.named("cravey.decoder").first)

        // When 1 s passes (time is the subject: the decoder is not to wake meanwhile)
        let before = try ProcessThreads.wakeups(of: decoder)
        try await Task.sleep(for: .seconds(1))
        let after = try ProcessThreads.wakeups(of: decoder)

        // Then the decoder's thread did not wake meanwhile (a 10 ms sleep loop wakes it 100 times)
        #expect(manager.event.state == .playing, "the clip ended before the second was over")
        #expect(after - before <= 5, "the decoder woke \(after - before) times in 1 s at the clip's end")

        // And a seek back wakes it: the clip plays on from there
        manager.seek(to: 1)
        try await wait(manager, until: 1.5)
        manager.stop()
        let summary = try await manager.result()
        #expect(!summary.completed)
    }

    @Test("a gain of +12 dB on a tone at half scale comes out at full scale and never beyond; -6 dB halves it")
    func gainIsClamped() async throws {
        // Given a tone at amplitude 0.5
        let sink = try await VirtualMicrophone()
        let clip = try await Fixture.tones([(440, 1)], ext: "wav", codec: ["-c:a", "pcm_f32le"])

        // When played with +12 dB and with -6 dB, captured at the sink's own rate (resampling a
        // clipped sine would overshoot by itself)
        let (_, loud, _, _) = try await play(clip, duration: 1, sink: sink, options: PlaybackOptions(gainDB: 12), rate: 48_000)
        let (_, quiet, _, _) = try await play(clip, duration: 1, sink: sink, options: PlaybackOptions(gainDB: -6), rate: 48_000)

        // Then +12 dB reaches full scale and no sample passes it; -6 dB halves the amplitude
        let loudPeak = loud.map(abs).max() ?? 0
        let quietPeak = quiet.map(abs).max() ?? 0
        #expect(loudPeak > 0.95 && loudPeak <= 1.0001, "\(loudPeak)")
        #expect(abs(quietPeak - 0.25) <= 0.03, "\(quietPeak)")
    }

    @Test("a video without an audio stream plays its duration in silence and completes")
    func silentVideo() async throws {
        // Given a 2 s video with no audio stream
        let sink = try await VirtualMicrophone()
        let clip = try await Fixture.make("mp4", ["-f", "lavfi", "-i", "testsrc=duration=2:size=160x120:rate=25",
                                            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])

        // When played
        let (summary, samples, wall, _) = try await play(clip, duration: 2, sink: sink)

        // Then it took 2 s of silence (in real time, not at once) and completed
        #expect(summary.completed && abs(summary.secondsListened - 2) <= 0.2, "\(summary)")
        #expect(wall >= 1.9 && wall <= 10, "wall \(wall)")
        #expect(ToneTrack.sounding(ToneTrack.spans(samples, frequencies: [440])).isEmpty)
    }

    @Test("a missing file is notFound, a file that is not media is undecodable, an unknown sink is unavailable")
    func failures() async throws {
        let folder = temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let missing = folder.appendingPathComponent("missing.m4a")
        let garbage = folder.appendingPathComponent("garbage.m4a")
        try Data(repeating: 0x5A, count: 4096).write(to: garbage)
        let tone = try await Fixture.tones([(440, 1)])

        for (url, sink, kind) in [(missing, nil, CraveyError.Kind.notFound), (garbage, nil, .undecodableMedia),
                                  (tone, "no_such_sink", .unavailable)] as [(URL, String?, CraveyError.Kind)] {
            let manager = PlaybackManager(fileAt: .outside(url), duration: 1, options: PlaybackOptions(sink: sink))
            let error = await #expect(throws: CraveyError.self) { try await manager.start() }
            #expect(error?.kind == kind, "\(url.lastPathComponent): \(String(describing: error))")
        }
    }

    @Test("the library counts a completed play and a stopped one, each in one transaction; a preview counts nothing")
    func countsPlays() async throws {
        // Given a library with one clip and a sink
        let sink = try await VirtualMicrophone()
        let library = try await Fixture.library(clips: 1)
        let recording = try #require(try library.recordings().first)
        let options = PlaybackOptions(sink: sink.sinkName)
        let preview = PlaybackOptions(sink: sink.sinkName, countsPlay: false)

        // When it is played to the end, previewed, and stopped at once
        let completed = try await library.play(recording, options: options).result()
        let previewed = try await library.play(recording, options: preview).result()
        let manager = try await library.play(recording, options: options)
        manager.stop()
        let stopped = try await manager.result()

        // Then two plays are counted, one completed and one not
        #expect(completed.counted && completed.completed && completed.recording?.playCount == 1)
        #expect(!previewed.counted && previewed.recording?.playCount == 0)
        #expect(stopped.counted && !stopped.completed && stopped.recording?.playCount == 2)
        let events = try library.plays(of: recording.id)
        #expect(events.map(\.completed) == [true, false])
        #expect(abs(events[0].secondsListened - 0.5) <= 0.2)
    }

    @Test("a completed play counts the whole clip as listened, though an idle sink's clock said less; one paused then stopped counts what was heard, not the pause")
    func listenedAsHeard() async throws {
        // Given an idle null sink (nothing reads its monitor, so it renders late) and a 3 s clip
        let sink = try await VirtualMicrophone()
        let clip = try await Fixture.tones([(440, 3)])

        // When it plays to the end
        let manager = PlaybackManager(fileAt: .outside(clip), duration: 3, options: PlaybackOptions(sink: sink.sinkName))
        try await manager.start()
        let completed = try await manager.result()

        // Then the play is completed with the clip's 3 s, not what the lagging clock said
        #expect(completed.completed && abs(completed.secondsListened - 3) < 0.05, "\(completed)")

        // When a 6 s clip plays 1 s, is paused for 15 of its events (1.5 s at 10 a second), then
        // stopped
        let paused = PlaybackManager(fileAt: .outside(try await Fixture.tones([(440, 6)])), duration: 6,
                                     options: PlaybackOptions(sink: sink.sinkName))
        try await paused.start()
        try await wait(paused, until: 1)
        paused.pause()
        var pausedEvents = 0
        for await event in paused.events where event.state == .paused {
            pausedEvents += 1
            if pausedEvents == 15 { break }
        }
        paused.stop()
        let stopped = try await paused.result()

        // Then about 1 s was listened: the pause, in which the corked stream's clock ran on, is not counted
        #expect(!stopped.completed && stopped.secondsListened >= 0.9 && stopped.secondsListened < 1.4, "\(stopped)")
    }
}

/// This process's threads, as the kernel lists them in `/proc/self/task`.
private enum ProcessThreads {
    /// Every thread's name (`comm`).
    static func names() -> [String] {
        tasks().compactMap(name(of:))
    }

    /// The ids of the threads named `name`.
    static func named(_ name: String) -> [String] {
        tasks().filter { Self.name(of: $0) == name }
    }

    /// How many times the thread has given up the CPU to wait (`voluntary_ctxt_switches`): each
    /// sleep or blocking wait that ends counts one.
    static func wakeups(of task: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") })
        return try #require(Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
    }

    private static func tasks() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    }

    private static func name(of task: String) -> String? {
        (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
