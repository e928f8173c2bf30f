internal import CPulseAudio

/// An owned PulseAudio record stream (`pa_simple` in record mode) delivering signed 16-bit PCM.
final class CaptureStream {
    private let stream: OpaquePointer

    /// Connects to the server on this computer (``LocalServers/soundServer(_:)``) and opens a
    /// record stream on `source` (nil: the default source). `fragmentDuration` sets `fragsize`,
    /// how often the server hands us data. The corresponding C function is `pa_simple_new`, which
    /// never spawns a server it is given by name.
    init(source: String?, sampleRate: Int, channels: Int, fragmentDuration: Double,
         applicationName: String = "cravey") throws(PulseAudioError) {
        let server = try PulseAudioError.server()
        var spec = pa_sample_spec(format: cravey_pa_sample_s16ne(), rate: UInt32(sampleRate), channels: UInt8(channels))
        let fragment = pa_usec_to_bytes(UInt64(fragmentDuration * 1_000_000), &spec)
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: UInt32(fragment))
        var error: Int32 = 0
        guard let stream = pa_simple_new(server, applicationName, PA_STREAM_RECORD, source, "Recording",
                                         &spec, nil, &attributes, &error) else {
            throw PulseAudioError(code: error, operation: "pa_simple_new")
        }
        self.stream = stream
    }

    deinit { pa_simple_free(stream) }

    /// Blocks until `samples` is full of interleaved samples. The corresponding C function is `pa_simple_read`.
    func read(into samples: inout [Int16]) throws(PulseAudioError) {
        var error: Int32 = 0
        let result = samples.withUnsafeMutableBytes { pa_simple_read(stream, $0.baseAddress, $0.count, &error) }
        try check(result, error: error, "pa_simple_read")
    }
}

@available(*, unavailable)
extension CaptureStream: Sendable {}
