internal import CPulseAudio
import Foundation

/// An owned PulseAudio playback stream of interleaved 32-bit float samples, on its own
/// `pa_threaded_mainloop`.
///
/// The asynchronous API, not `pa_simple` (which ``CaptureStream`` uses): a player must cork the
/// stream (so a pause silences the sink at once, not once the buffer has run dry), flush it on a
/// seek, drain it at the end without being stuck there when the person seeks or stops meanwhile,
/// and read the stream's timing to know what the sink has played. `pa_simple` has flush, drain and
/// latency, but no cork, and its drain cannot be interrupted.
///
/// Nothing here sleeps: every wait is on the mainloop's condition (`pa_threaded_mainloop_wait`),
/// signalled by the server's callbacks, by ``wakeUp()``, or by a time event on the mainloop.
// @unchecked Sendable: the C objects and `reporter` are only touched with the threaded mainloop's
// lock held (`pa_threaded_mainloop_lock`, or on the mainloop's own thread, which holds it while
// it runs callbacks), which is what that lock is for, and in `deinit` once the mainloop has
// stopped; the `let`s never change.
final class PlaybackStream: @unchecked Sendable {
    private let mainloop: OpaquePointer
    private let context: OpaquePointer
    private let stream: OpaquePointer
    /// A time event that signals the mainloop's condition: the deadline of a wait.
    private let alarm: OpaquePointer
    private let frameBytes: Int
    private let sampleRate: Int
    private var reporter: Reporter?

    /// Connects to the server on this computer (``LocalServers/soundServer(_:)``) and opens a
    /// playback stream on `sink` (nil: the default sink) that keeps `bufferDuration` seconds
    /// queued at the server, and starts to play once they are there. The corresponding C functions are `pa_context_connect` and `pa_stream_connect_playback`.
    ///
    /// The stream is set up as `paplay`'s is:
    /// - `tlength` 2 s (the server's default): the writer may be late by that much before the
    ///   sink runs dry. (With `PA_STREAM_ADJUST_LATENCY` the server would give half of `tlength`
    ///   to the sink's latency, leaving less queued than asked.)
    /// - `prebuf` the server's default, the whole `tlength` less one request: the stream starts
    ///   once its queue is full, so the writes of the first second do not each ask the sink for a
    ///   rewind (which a sink's monitor loses the start of the clip to). Filling the queue first
    ///   costs the time to decode 2 s.
    /// - No `PA_STREAM_ADJUST_LATENCY`: the sink keeps the latency its other streams ask for; a
    ///   pause is quiet at once all the same, since a cork rewinds the sink.
    init(sink: String?, sampleRate: Int, channels: Int, bufferDuration: Double = 2,
         applicationName: String = "cravey", mediaName: String = "Playback") throws(PulseAudioError) {
        let server = try PulseAudioError.server()
        guard let mainloop = pa_threaded_mainloop_new() else {
            throw PulseAudioError(code: Int32(PA_ERR_INTERNAL.rawValue), operation: "pa_threaded_mainloop_new")
        }
        guard let context = pa_context_new(pa_threaded_mainloop_get_api(mainloop), applicationName) else {
            pa_threaded_mainloop_free(mainloop)
            throw PulseAudioError(code: Int32(PA_ERR_INTERNAL.rawValue), operation: "pa_context_new")
        }
        let signal: pa_context_notify_cb_t = { _, mainloop in pa_threaded_mainloop_signal(OpaquePointer(mainloop), 0) }
        pa_context_set_state_callback(context, signal, UnsafeMutableRawPointer(mainloop))
        func abandon(_ operation: String) -> PulseAudioError {
            let error = PulseAudioError(code: pa_context_errno(context), operation: operation)
            pa_threaded_mainloop_unlock(mainloop)
            pa_threaded_mainloop_stop(mainloop)
            pa_context_disconnect(context)
            pa_context_unref(context)
            pa_threaded_mainloop_free(mainloop)
            return error
        }
        pa_threaded_mainloop_lock(mainloop)
        guard pa_context_connect(context, server, PulseAudioError.connectFlags(for: server), nil) >= 0,
              pa_threaded_mainloop_start(mainloop) >= 0 else { throw abandon("pa_context_connect") }
        while pa_context_get_state(context) != PA_CONTEXT_READY {
            switch pa_context_get_state(context) {
            case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED: throw abandon("pa_context_connect")
            default: pa_threaded_mainloop_wait(mainloop)
            }
        }
        var spec = pa_sample_spec(format: cravey_pa_sample_float32ne(), rate: UInt32(sampleRate), channels: UInt8(channels))
        guard let stream = pa_stream_new(context, mediaName, &spec, nil) else { throw abandon("pa_stream_new") }
        let streamSignal: pa_stream_notify_cb_t = { _, mainloop in pa_threaded_mainloop_signal(OpaquePointer(mainloop), 0) }
        let requestSignal: pa_stream_request_cb_t = { _, _, mainloop in pa_threaded_mainloop_signal(OpaquePointer(mainloop), 0) }
        pa_stream_set_state_callback(stream, streamSignal, UnsafeMutableRawPointer(mainloop))
        pa_stream_set_write_callback(stream, requestSignal, UnsafeMutableRawPointer(mainloop))
        let target = UInt32(pa_usec_to_bytes(UInt64(bufferDuration * 1_000_000), &spec))
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: target, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: UInt32.max)
        let flags = pa_stream_flags_t(PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue)
        func abandonStream(_ operation: String) -> PulseAudioError {
            pa_stream_unref(stream)
            return abandon(operation)
        }
        guard pa_stream_connect_playback(stream, sink, &attributes, flags, nil, nil) >= 0 else {
            throw abandonStream("pa_stream_connect_playback")
        }
        while pa_stream_get_state(stream) != PA_STREAM_READY {
            switch pa_stream_get_state(stream) {
            case PA_STREAM_FAILED, PA_STREAM_TERMINATED: throw abandonStream("pa_stream_connect_playback")
            default: pa_threaded_mainloop_wait(mainloop)
            }
        }
        // PipeWire's PulseAudio server plays a stream for a sink that does not exist to the default
        // sink; PulseAudio refuses it. Refused on both (the corresponding C function is
        // `pa_stream_get_device_name`).
        if let sink, pa_stream_get_device_name(stream).map({ String(cString: $0) }) != sink {
            _ = abandonStream("pa_stream_connect_playback")
            throw PulseAudioError(code: Int32(PA_ERR_NOENTITY.rawValue), operation: "pa_stream_connect_playback(\(sink))")
        }
        let ring: pa_time_event_cb_t = { _, _, _, mainloop in pa_threaded_mainloop_signal(OpaquePointer(mainloop), 0) }
        guard let alarm = pa_context_rttime_new(context, Self.never, ring, UnsafeMutableRawPointer(mainloop)) else {
            throw abandonStream("pa_context_rttime_new")
        }
        pa_threaded_mainloop_unlock(mainloop)
        self.mainloop = mainloop
        self.context = context
        self.stream = stream
        self.alarm = alarm
        self.sampleRate = sampleRate
        frameBytes = channels * MemoryLayout<Float>.size
    }

    deinit {
        pa_threaded_mainloop_stop(mainloop)
        let api = pa_threaded_mainloop_get_api(mainloop)!.pointee
        if let event = reporter?.event { api.time_free(event) }
        api.time_free(alarm)
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_threaded_mainloop_free(mainloop)
    }

    /// Queues interleaved samples, waiting while the server's buffer is full; false when
    /// `keepGoing` said no first (checked while waiting, see ``wakeUp()``), with part of the samples
    /// written. The corresponding C function is `pa_stream_write`.
    func write(_ samples: [Float], while keepGoing: () -> Bool) throws(PulseAudioError) -> Bool {
        try locked { () throws(PulseAudioError) -> Bool in
            let result = samples.withUnsafeBytes { bytes -> Result<Bool, PulseAudioError> in
                var offset = 0
                while offset < bytes.count {
                    guard keepGoing() else { return .success(false) }
                    if let error = failure("pa_stream_write") { return .failure(error) }
                    let writable = pa_stream_writable_size(stream)
                    // (size_t)-1, an error, arrives as -1; the failed state is read on the next round.
                    guard writable != -1 else {
                        return .failure(PulseAudioError(code: pa_context_errno(context), operation: "pa_stream_writable_size"))
                    }
                    if writable == 0 {
                        pa_threaded_mainloop_wait(mainloop)
                        continue
                    }
                    var count = min(writable, bytes.count - offset)
                    count -= count % frameBytes
                    if count == 0 { count = min(frameBytes, bytes.count - offset) }
                    guard pa_stream_write(stream, bytes.baseAddress! + offset, count, nil, 0, PA_SEEK_RELATIVE) >= 0 else {
                        return .failure(PulseAudioError(code: pa_context_errno(context), operation: "pa_stream_write"))
                    }
                    offset += count
                }
                return .success(true)
            }
            return try result.get()
        }
    }

    /// Pauses (`true`) or resumes the stream at the server: the sink stops taking its samples at
    /// once. The corresponding C function is `pa_stream_cork`.
    func cork(_ paused: Bool) throws(PulseAudioError) {
        try locked { () throws(PulseAudioError) in
            _ = try perform("pa_stream_cork", pa_stream_cork(stream, paused ? 1 : 0, Self.signalSuccess, UnsafeMutableRawPointer(mainloop)))
        }
    }

    /// Drops what is queued and not yet played, and returns the stream time (see ``playedTime``)
    /// at which the next written sample will play. The corresponding C functions are
    /// `pa_stream_flush` and `pa_stream_update_timing_info`.
    func flush() throws(PulseAudioError) -> Double {
        try locked { () throws(PulseAudioError) -> Double in
            _ = try perform("pa_stream_flush", pa_stream_flush(stream, Self.signalSuccess, UnsafeMutableRawPointer(mainloop)))
            return try writtenTime()
        }
    }

    /// Waits until everything written has been played; false when `keepGoing` said no first (the
    /// drain is then cancelled). The corresponding C functions are `pa_stream_drain`,
    /// `pa_stream_get_time` and `pa_context_rttime_restart`.
    ///
    /// The server acknowledges a drain once the sink has taken the last sample, which the sink
    /// still holds for its latency (and disconnecting would rewind it away); so this then waits
    /// for what the stream time says is left, up to 2.5 s, holding the count while corked. (The
    /// stream time itself stops short of the end once the stream has run dry, so it is read once.)
    /// That wait is on the mainloop's condition, until a time event at its end, a cork or an
    /// uncork, or ``wakeUp()``.
    func drain(while keepGoing: () -> Bool) throws(PulseAudioError) -> Bool {
        try locked { () throws(PulseAudioError) -> Bool in
            guard try perform("pa_stream_drain", pa_stream_drain(stream, Self.signalSuccess, UnsafeMutableRawPointer(mainloop)),
                              while: keepGoing) else { return false }
            let end = try writtenTime()
            var left = pa_usec_t((min(max(end - (streamTime() ?? end), 0), 2.5) * 1_000_000).rounded())
            defer { pa_context_rttime_restart(context, alarm, Self.never) }
            var since = pa_rtclock_now()
            while left > 0 {
                guard keepGoing() else { return false }
                if let error = failure("pa_stream_drain") { throw error }
                // Corked, the count holds, and only the uncork's signal (or a wake-up) ends the wait.
                let corked = pa_stream_is_corked(stream) == 1
                pa_context_rttime_restart(context, alarm, corked ? Self.never : since + left)
                pa_threaded_mainloop_wait(mainloop)
                let now = pa_rtclock_now()
                if !corked { left -= min(left, now - since) }
                since = now
            }
            return true
        }
    }

    /// Seconds of the stream the sink has played (its latency accounted for, interpolated between
    /// the server's updates); nil before the server has said. It stops while corked and does not
    /// go back on a flush. The corresponding C function is `pa_stream_get_time`.
    var playedTime: Double? {
        locked { streamTime() }
    }

    /// Calls `body` with ``playedTime`` at once and every `interval` seconds after, until the
    /// stream is freed, corked or not: a player's position events, at a pace no busy thread pool
    /// can slow. The corresponding C functions are `pa_context_rttime_new` and
    /// `pa_context_rttime_restart`.
    ///
    /// `body` runs on the mainloop's thread, which holds the mainloop's lock meanwhile: it must not
    /// call this stream (taking that lock there deadlocks), and it delays every other callback.
    func reportPlayedTime(every interval: Double, _ body: @escaping @Sendable (Double?) -> Void) {
        let tick: pa_time_event_cb_t = { _, event, _, reporter in
            let reporter = Unmanaged<Reporter>.fromOpaque(reporter!).takeUnretainedValue()
            var microseconds: pa_usec_t = 0
            reporter.body(pa_stream_get_time(reporter.stream, &microseconds) >= 0 ? Double(microseconds) / 1_000_000 : nil)
            pa_context_rttime_restart(reporter.context, event, pa_rtclock_now() + reporter.interval)
        }
        locked {
            precondition(reporter == nil, "a PlaybackStream reports to one observer")
            let reporter = Reporter(stream: stream, context: context, interval: pa_usec_t(interval * 1_000_000), body: body)
            // Unretained: `self.reporter` keeps it until `deinit`, which frees the event first.
            reporter.event = pa_context_rttime_new(context, pa_rtclock_now(), tick, Unmanaged.passUnretained(reporter).toOpaque())
            self.reporter = reporter
        }
    }

    /// Wakes a ``write(_:while:)`` or ``drain(while:)`` waiting on the server, so it asks its
    /// `keepGoing` again. The corresponding C function is `pa_threaded_mainloop_signal`.
    func wakeUp() {
        locked { pa_threaded_mainloop_signal(mainloop, 0) }
    }

    /// What ``reportPlayedTime(every:_:)`` calls, boxed for the time event's `void *`.
    private final class Reporter {
        let stream: OpaquePointer
        let context: OpaquePointer
        let interval: pa_usec_t
        let body: @Sendable (Double?) -> Void
        var event: OpaquePointer?

        init(stream: OpaquePointer, context: OpaquePointer, interval: pa_usec_t, body: @escaping @Sendable (Double?) -> Void) {
            self.stream = stream
            self.context = context
            self.interval = interval
            self.body = body
        }
    }

    // MARK: - With the mainloop locked

    /// `PA_USEC_INVALID`, which does not import: a time event restarted with it is disabled.
    private static let never = pa_usec_t.max

    private static let signalSuccess: pa_stream_success_cb_t = { _, _, mainloop in
        pa_threaded_mainloop_signal(OpaquePointer(mainloop), 0)
    }

    private func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return try body()
    }

    /// See ``playedTime``.
    private func streamTime() -> Double? {
        var microseconds: pa_usec_t = 0
        guard pa_stream_get_time(stream, &microseconds) >= 0 else { return nil }
        return Double(microseconds) / 1_000_000
    }

    /// The stream time (see ``playedTime``) at which the next written sample will play, from
    /// fresh timing. The corresponding C function is `pa_stream_update_timing_info`.
    private func writtenTime() throws(PulseAudioError) -> Double {
        _ = try perform("pa_stream_update_timing_info",
                        pa_stream_update_timing_info(stream, Self.signalSuccess, UnsafeMutableRawPointer(mainloop)))
        guard let timing = pa_stream_get_timing_info(stream) else { return 0 }
        return Double(max(timing.pointee.write_index, 0)) / Double(frameBytes * sampleRate)
    }

    /// The error of a stream or context that has failed; nil while both are good.
    private func failure(_ operation: String) -> PulseAudioError? {
        guard pa_stream_get_state(stream) != PA_STREAM_READY else { return nil }
        let code = pa_context_errno(context)
        return PulseAudioError(code: code == 0 ? Int32(PA_ERR_CONNECTIONTERMINATED.rawValue) : code, operation: operation)
    }

    /// Waits for an operation to complete; false when `keepGoing` said no first (it is cancelled then).
    private func perform(_ name: String, _ operation: OpaquePointer?,
                         while keepGoing: () -> Bool = { true }) throws(PulseAudioError) -> Bool {
        guard let operation else { throw PulseAudioError(code: pa_context_errno(context), operation: name) }
        defer { pa_operation_unref(operation) }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING {
            if let error = failure(name) { throw error }
            guard keepGoing() else {
                pa_operation_cancel(operation)
                return false
            }
            pa_threaded_mainloop_wait(mainloop)
        }
        return true
    }
}
