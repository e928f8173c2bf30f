import Foundation

/// Records what a sink plays, from its monitor, with `parec` (mono float samples at
/// ``Witness/analysisRate``), as an independent witness of what reached the sound server.
public final class SinkCapture: @unchecked Sendable {
    // @unchecked Sendable: `process` and `file` are set in `init` and only read afterwards.
    private let process = TestProcess()
    private let keeper = TestProcess()
    private let file: URL
    private let rate: Double

    /// Starts recording `sink`'s monitor at `rate` samples a second, and returns once the monitor's
    /// first samples (the keeper's silence) are recorded.
    ///
    /// A stream of silence keeps the sink running meanwhile: an idle null sink hands its monitor
    /// nothing, so a pause would leave no trace in the recording. It asks for a low latency: a
    /// null sink renders as far ahead as its streams allow, and a stream of the default 2 s
    /// would make it mix a new stream's first second late.
    public init(sink: String, rate: Double = Witness.analysisRate, in folder: URL? = nil) throws {
        _ = TestSoundServer.address
        self.rate = rate
        file = (folder ?? temporaryFolder()).appendingPathComponent("capture-\(UUID().uuidString).f32")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["parec", "--device=\(sink).monitor", "--format=float32le", "--rate=\(Int(rate))",
                             "--channels=1", "--latency-msec=20", "--raw"]
        process.standardOutput = try FileHandle(forWritingTo: file)
        process.standardError = FileHandle.nullDevice
        try process.run()
        keeper.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        keeper.arguments = ["pacat", "--playback", "--raw", "--device=\(sink)", "--format=float32le", "--rate=8000",
                            "--channels=1", "--latency-msec=20", "/dev/zero"]
        keeper.standardOutput = FileHandle.nullDevice
        keeper.standardError = FileHandle.nullDevice
        try keeper.run()
        guard waitUntil(within: 10, every: 0.01, { recorded > 0 }) else {
            for child in [process, keeper] { kill(child.processIdentifier, SIGKILL) }
            throw TestFailure("the monitor of \(sink) handed parec nothing within 10 s")
        }
    }

    /// Starts recording off the cooperative pool (starting waits for the recorder).
    public static func start(sink: String, rate: Double = Witness.analysisRate) async throws -> SinkCapture {
        let folder = temporaryFolder()
        return try await offPool { try SinkCapture(sink: sink, rate: rate, in: folder) }
    }

    deinit {
        for child in [process, keeper] where child.isRunning { kill(child.processIdentifier, SIGKILL) }
    }

    /// How many samples the recorder has written so far: the index, in ``stop()``'s samples, of
    /// what the monitor hands out about now (parec writes each fragment, 20 ms, as it arrives).
    public var recorded: Int {
        var status = stat()
        return stat(file.path, &status) == 0 ? Int(status.st_size) / 4 : 0
    }

    /// Seconds the monitor has handed out since the first sample above `threshold` (the first
    /// sound the sink played) reached it; 0 before any did.
    public func heard(above threshold: Float = 0.1) throws -> Double {
        let samples = try samplesSoFar()
        guard let first = samples.firstIndex(where: { abs($0) > threshold }) else { return 0 }
        return Double(samples.count - first) / rate
    }

    /// Stops recording, once what the sink mixed until now is recorded (0.3 s more of the
    /// monitor), and returns the samples.
    public func stop() throws -> [Float] {
        if process.isRunning {
            let now = recorded
            _ = waitUntil(within: 10, every: 0.01) { recorded >= now + Int(0.3 * rate) }
        }
        // SIGKILL: a child started from a thread that blocks signals (as the test pool's do)
        // inherits that mask, and parec would never see a SIGTERM. It writes what it records at once.
        for child in [process, keeper] {
            kill(child.processIdentifier, SIGKILL)
            child.waitForExit()
        }
        return try samplesSoFar()
    }

    /// The samples recorded until now, whole ones only.
    private func samplesSoFar() throws -> [Float] {
        let data = try Data(contentsOf: file)
        return data.prefix(data.count / 4 * 4).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

/// Spans of a recording by what they hold: silence or one of a few known tones.
public enum ToneTrack {
    public struct Span: Sendable, CustomStringConvertible {
        /// The tone's frequency, nil for silence.
        public var frequency: Double?
        public var start: Double
        public var end: Double
        public var duration: Double { end - start }
        public var description: String {
            "\(frequency.map { "\(Int($0)) Hz" } ?? "silence") \(String(format: "%.2f-%.2f", start, end))"
        }
    }

    /// Splits `samples` into 25 ms windows, names each silent (RMS below `floor`) or after the
    /// loudest of `frequencies` (Goertzel), and joins neighbours that agree.
    public static func spans(_ samples: [Float], frequencies: [Double], floor: Float = 0.01,
                             sampleRate: Double = Witness.analysisRate) -> [Span] {
        let window = Int(sampleRate / 40)
        var spans: [Span] = []
        var start = 0
        while start + window <= samples.count {
            let slice = samples[start..<start + window]
            let rms = (slice.reduce(0) { $0 + $1 * $1 } / Float(window)).squareRoot()
            var frequency: Double?
            if rms >= floor {
                frequency = frequencies.max { power(slice, $0, sampleRate) < power(slice, $1, sampleRate) }
            }
            let (from, to) = (Double(start) / sampleRate, Double(start + window) / sampleRate)
            if let last = spans.last, last.frequency == frequency {
                spans[spans.count - 1].end = to
            } else {
                spans.append(Span(frequency: frequency, start: from, end: to))
            }
            start += window
        }
        return spans
    }

    /// Spans of sound only: silence before, between and after left out, and so are single
    /// windows (a tone cut off mid-window can read as another frequency).
    public static func sounding(_ spans: [Span]) -> [Span] {
        var sounding: [Span] = []
        for span in spans where span.frequency != nil && span.duration > 0.03 {
            if let last = sounding.last, last.frequency == span.frequency, span.start - last.end < 0.001 {
                sounding[sounding.count - 1].end = span.end
            } else {
                sounding.append(span)
            }
        }
        return sounding
    }

    /// The energy of one frequency in `samples` (Goertzel).
    static func power(_ samples: ArraySlice<Float>, _ frequency: Double, _ sampleRate: Double) -> Double {
        let coefficient = 2 * cos(2 * .pi * frequency / sampleRate)
        var (s1, s2) = (0.0, 0.0)
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            (s2, s1) = (s1, s0)
        }
        return s1 * s1 + s2 * s2 - coefficient * s1 * s2
    }
}

extension Fixture {
    /// A clip of tones one after the other, each (frequency, seconds), at amplitude 0.5, encoded
    /// by ffmpeg with `codec` into a file with the extension `ext`.
    public static func tones(_ tones: [(frequency: Double, seconds: Double)], ext: String = "m4a",
                             codec: [String] = ["-c:a", "aac", "-b:a", "128k"], channels: Int = 1) async throws -> URL {
        var inputs: [String] = []
        for tone in tones {
            inputs += ["-f", "lavfi", "-i", "sine=frequency=\(tone.frequency):duration=\(tone.seconds):sample_rate=48000"]
        }
        let labels = tones.indices.map { "[\($0):a]" }.joined()
        let filter = "\(labels)concat=n=\(tones.count):v=0:a=1,volume=4"
        return try await make(ext, inputs + ["-filter_complex", filter, "-ac", String(channels)] + codec)
    }
}
