import Foundation

/// Decoded samples played faster or slower with their pitch kept: FFmpeg's `atempo` filter
/// (waveform-similarity overlap-add, as mpv's `scaletempo`), between the decoder stage's
/// resampler and the playback stream.
///
/// The player makes one per seek at a speed other than 1 (``PlaybackControl``'s generation), so
/// a change of speed goes on from where the sink is, as a seek does.
final class AudioTempo {
    /// The speeds a play may have: half to twice the clip's own, as mpv's keys go.
    static let speeds = 0.5...2.0

    private let graph: AudioFilterGraph
    private let format: AudioFormat
    private let input: Frame
    private let output: Frame
    /// The samples pushed so far: the next frame's time stamp.
    private var pushed: Int64 = 0

    /// A tempo stage for interleaved floats at `sampleRate` in `channels`, playing `speed`
    /// times as fast. The corresponding C functions are libavfilter's (``AudioFilterGraph``).
    init(sampleRate: Int, channels: Int, speed: Double) throws(FFmpegError) {
        format = .floatInterleaved(sampleRate: sampleRate, channels: channels)
        graph = try AudioFilterGraph(for: format, filters: "atempo=\(speed),aformat=sample_fmts=flt")
        input = try Frame()
        output = try Frame()
    }

    /// Takes interleaved `samples` through the filter; returns what it gives out so far (it holds
    /// some back, a window's worth, until more come or ``finish()``).
    func process(_ samples: [Float]) throws(FFmpegError) -> [Float] {
        let count = samples.count / Int(format.channels)
        guard count > 0 else { return [] }
        try input.allocateAudio(samples: count, format: format)
        samples.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(input.mutableAudioPlanes[0]!).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
        input.pts = pushed
        pushed += Int64(count)
        try graph.push(input)
        return try drained()
    }

    /// Says no more samples come, and returns what the filter still held.
    func finish() throws(FFmpegError) -> [Float] {
        try graph.push(nil)
        return try drained()
    }

    private func drained() throws(FFmpegError) -> [Float] {
        var samples: [Float] = []
        let channels = Int(format.channels)
        try graph.drain(into: output) { frame in
            let floats = UnsafeRawPointer(frame.audioPlanes[0]!).assumingMemoryBound(to: Float.self)
            samples.append(contentsOf: UnsafeBufferPointer(start: floats, count: frame.sampleCount * channels))
        }
        return samples
    }
}

@available(*, unavailable)
extension AudioTempo: Sendable {}
