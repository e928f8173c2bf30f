import Foundation

/// The microphone side of a recording, shared by the audio and video recorders: finds the
/// PulseAudio source, reads fixed blocks on the producer's thread, measures their levels and
/// warns about silence, leaves out what is read while paused, and hands each block recorded to
/// the pipeline.
enum MicrophoneCapture {
    /// A block of interleaved samples, and when its first sample was captured.
    struct Block: Sendable {
        var samples: [Int16]
        /// Seconds on the recording's clock (``RecordingControl/clock``): the first block's
        /// arrival less its own length, then counted in samples read (recorded or not) from there.
        var time: Double
    }

    /// What the capture stage reports once it has ended.
    struct Summary: Sendable {
        var source: String
        /// Samples recorded (per channel), paused stretches left out.
        var samples = 0
        var peak = AudioLevel.floor
        /// Seconds from the clock's origin to the first captured sample's arrival.
        var latency = 0.0
        var interruption: String?
    }

    /// Captures until the pipeline stops or ``RecordingOptions/maxDuration`` of audio has been
    /// recorded; a sound server that goes away ends the capture with an interruption (an
    /// `.interrupted` event), keeping what was read. While the pipeline is paused
    /// (``MediaPipeline/Producer/isPaused``), blocks are read and let go (``PauseSplice``), and the encoder is told where each pause began and ended on
    /// the clock (`.audioPaused`, `.audioResumed`), so that a video leaves out the same stretch.
    ///
    /// `control`'s clock is the recording's: the first block's time and the `.started` latency
    /// count from it (the encoder measures the waveform of what it writes). The
    /// corresponding C function is `pa_simple_read`, which blocks.
    static func run(_ stage: Recorder.Stages.Producer, options: RecordingOptions, control: RecordingControl) throws {
        let origin = control.clock.origin
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
        var splice = PauseSplice(sampleRate: options.sampleRate, channels: options.channels)
        var firstTime = 0.0
        // Frames read, recorded or not: the blocks' clock.
        var read = 0
        while summary.samples < limit, try stage.proceed(throughPause: true) {
            do throws(PulseAudioError) {
                try stream.read(into: &block)
            } catch {
                let interruption = CraveyError.soundServer(error, source: source).message
                summary.interruption = interruption
                stage.emit(.interrupted(interruption))
                break
            }
            if read == 0 {
                summary.latency = (ContinuousClock.now - origin) / .seconds(1)
                firstTime = max(summary.latency - Double(blockFrames) / rate, 0)
                stage.emit(.started(source: source, latency: summary.latency))
            }
            let time = firstTime + Double(read) / rate
            read += blockFrames
            let (kept, skipped, change) = splice.take(block, paused: stage.isPaused)
            let elapsed = Double(summary.samples) / rate
            // Before anything was recorded, a pause only delays the start: there is nothing to cut.
            switch change {
            case .paused?:
                if summary.samples > 0 { try stage.push(.audioPaused(time: time)) }
                stage.emit(.paused(elapsed: elapsed))
            case .resumed?:
                if summary.samples > 0 { try stage.push(.audioResumed(time: time + Double(skipped) / rate)) }
                stage.emit(.resumed(elapsed: elapsed))
            case nil:
                break
            }
            guard !splice.isPaused else {
                // Read and let go; the meter still shows the microphone is live.
                stage.emit(.level(AudioLevel.measure(block, elapsed: elapsed)))
                continue
            }
            let frames = min(kept.count / options.channels, limit - summary.samples)
            let chunk = frames * options.channels == kept.count ? kept : Array(kept.prefix(frames * options.channels))
            summary.samples += frames
            let level = AudioLevel.measure(chunk, elapsed: Double(summary.samples) / rate)
            summary.peak = max(summary.peak, level.peak)
            _ = try stage.push(.samples(Block(samples: chunk, time: time + Double(skipped) / rate)))
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
