import Foundation

/// The microphone side of a recording, shared by the audio and video recorders: finds the
/// PulseAudio source, reads fixed blocks on the producer's thread, measures their levels and
/// warns about silence, and hands each block to the pipeline.
enum MicrophoneCapture {
    /// A block of interleaved samples, and when its first sample was captured.
    struct Block: Sendable {
        var samples: [Int16]
        /// Seconds on the recording's clock (from the `origin` given to ``run(_:options:origin:)``):
        /// the first block's arrival less its own length, then counted in samples from there.
        var time: Double
    }

    /// What the capture stage reports once it has ended.
    struct Summary: Sendable {
        var source: String
        var samples = 0
        var peak = AudioLevel.floor
        /// Seconds from `origin` to the first captured sample's arrival.
        var latency = 0.0
        var interruption: String?
    }

    /// Captures until the pipeline stops or ``RecordingOptions/maxDuration`` of audio has been
    /// read; a sound server that goes away ends the capture with an interruption (an
    /// `.interrupted` event), keeping what was read.
    ///
    /// `origin` is the recording's clock: the first block's time and the `.started` latency count
    /// from it. The corresponding C function is `pa_simple_read`, which blocks.
    static func run(_ stage: Recorder.Stages.Producer, options: RecordingOptions, origin: ContinuousClock.Instant) throws {
        let source = try resolveSource(options.source)
        let stream: CaptureStream
        do {
            stream = try CaptureStream(source: source, sampleRate: options.sampleRate, channels: options.channels,
                                       fragmentDuration: options.levelInterval)
        } catch {
            throw CraveyError.soundServer(error, source: source)
        }
        try stage.ready()
        let rate = Double(options.sampleRate)
        let blockFrames = max(Int(rate * options.levelInterval), 64)
        let limit = options.maxDuration.map { Int(($0 * rate).rounded()) } ?? .max
        var block = [Int16](repeating: 0, count: blockFrames * options.channels)
        var summary = Summary(source: source)
        var silence = SilenceDetector()
        var firstTime = 0.0
        while summary.samples < limit, try stage.proceed() {
            do throws(PulseAudioError) {
                try stream.read(into: &block)
            } catch {
                let interruption = CraveyError.soundServer(error, source: source).message
                summary.interruption = interruption
                stage.emit(.interrupted(interruption))
                break
            }
            if summary.samples == 0 {
                summary.latency = (ContinuousClock.now - origin) / .seconds(1)
                firstTime = max(summary.latency - Double(blockFrames) / rate, 0)
                stage.emit(.started(source: source, latency: summary.latency))
            }
            let frames = min(blockFrames, limit - summary.samples)
            let chunk = frames == blockFrames ? block : Array(block.prefix(frames * options.channels))
            let time = firstTime + Double(summary.samples) / rate
            summary.samples += frames
            let level = AudioLevel.measure(chunk, elapsed: Double(summary.samples) / rate)
            summary.peak = max(summary.peak, level.peak)
            try stage.push(.samples(Block(samples: chunk, time: time)))
            stage.emit(.level(level))
            if silence.isSilent(after: level) { stage.emit(.silenceWarning(source: source)) }
        }
        try stage.push(.audioEnd(summary))
    }

    /// The name of the source to record from: `name` if the server has it, else the default source.
    private static func resolveSource(_ name: String?) throws -> String {
        do throws(PulseAudioError) {
            let server = try ServerConnection()
            guard let name else { return try server.defaultSourceName() ?? "default" }
            guard try server.devices(.sources).contains(where: { $0.name == name }) else { throw PulseAudioError.noSuchEntity }
            return name
        } catch {
            throw CraveyError.soundServer(error, source: name)
        }
    }
}
