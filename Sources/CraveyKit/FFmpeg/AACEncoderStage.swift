/// Turns audio into AAC packets in one stream of a muxer: libswresample -> a FIFO of whole
/// encoder frames -> libavcodec's native `aac`. Recording feeds it microphone PCM; import feeds
/// it decoded frames.
final class AACEncoderStage {
    private let resampler: Resampler
    private let encoder: Encoder
    private let fifo: AudioFIFO
    private let muxer: Muxer
    private let streamIndex: Int32
    private let converted: Frame
    private let frame: Frame
    private let packet: Packet
    private var encodedSamples: Int64 = 0
    /// Samples the resampler has given so far.
    private var convertedSamples = 0
    /// For timed input: the first timestamp, in seconds, less the jumps skipped since.
    private var timeOrigin: Double?
    /// For timed input: where the next frame should start, in seconds from the first.
    private var nextTime: Double = 0

    /// Adds an AAC stream to `muxer`, fed through `resampler` (whose output must be float planar).
    ///
    /// The encoder's first packet holds its delay (``primingSamples``) and is stamped that far
    /// before the first sample, so before 0. With `primingAtZero`, timestamps start one delay
    /// later, so that packet is at 0: a fragmented MP4 written as it goes has no edit list, and
    /// would start every other track that much late, stretching the video's first frame.
    init(muxer: Muxer, resampler: Resampler, bitRate: Int, primingAtZero: Bool = false) throws(FFmpegError) {
        let output = resampler.output
        encoder = try Encoder(AudioEncoding(codec: "aac", sampleRate: Int(output.sampleRate), channels: Int(output.channels),
                                            bitRate: bitRate), globalHeader: muxer.wantsGlobalHeader)
        self.resampler = resampler
        self.muxer = muxer
        fifo = try AudioFIFO(format: output, capacity: encoder.frameSize * 8)
        streamIndex = try muxer.addStream(encoder.parameters())
        converted = try Frame()
        frame = try Frame()
        packet = try Packet()
        if primingAtZero { encodedSamples = encoder.primingSamples }
    }

    /// Samples of encoder delay in front of the audio (1024 for AAC), which players skip when the
    /// container has an edit list.
    var primingSamples: Int64 { encoder.primingSamples }

    /// Converts `count` samples per channel given as planes (nil drains the resampler), keeping
    /// what the resampler gives up to `limit` samples in all, and encodes every whole frame they
    /// complete.
    private func push(_ planes: UnsafePointer<UnsafePointer<UInt8>?>?, count: Int, limit: Int = .max) throws(FFmpegError) {
        let capacity = resampler.outputCapacity(forInput: count)
        guard capacity > 0 else { return }
        // Only the FIFO reads this frame, and it copies: its buffers serve every push, and are
        // reallocated only when a push needs more samples than they hold.
        if capacity > converted.sampleCount {
            let output = fifo.format
            try converted.allocateAudio(samples: capacity, format: output)
        }
        let written = min(try resampler.convert(planes, count: count, into: converted.mutableAudioPlanes, capacity: capacity),
                          limit - convertedSamples)
        if written > 0 { try fifo.write(converted, count: written) }
        convertedSamples += max(written, 0)
        try encodeWholeFrames(flushing: false)
    }

    /// A timestamp further than this from where the audio stands is a break in the stream (a
    /// joined or restarted recording), not drift: the audio carries on from where it stands, as
    /// ffmpeg's `-dts_delta_threshold` (10 s) does, so a bad timestamp cannot add hours of silence.
    static let discontinuity = 10.0

    /// Converts and encodes a decoded frame at the time it carries (`seconds`, its decoder's
    /// ``Decoder/seconds(of:)``, nil for none): the audio is timed by its samples from its first
    /// timestamp, and a frame whose timestamp says it overlaps what came before loses the
    /// overlap, one after a gap gets the gap as silence (`aresample=async=1`), so broken
    /// timestamps neither stretch nor shrink the clip. A frame with no timestamp follows the one
    /// before.
    func push(_ decoded: Frame, at seconds: Double?) throws(FFmpegError) {
        if let stamped = seconds {
            let origin = timeOrigin ?? stamped
            var time = stamped - origin
            if !(abs(time - nextTime) <= Self.discontinuity) {
                timeOrigin = origin + time - nextTime
                time = nextTime
            } else {
                timeOrigin = origin
            }
            resampler.startNext(at: time)
            nextTime = time
        }
        nextTime += Double(decoded.sampleCount) / Double(max(resampler.input.sampleRate, 1))
        try push(decoded.audioPlanes, count: decoded.sampleCount)
    }

    /// Converts and encodes interleaved samples in the resampler's input format (signed 16-bit
    /// for recording), as many per channel as the array holds whole.
    func push(interleaved samples: [Int16]) throws(FFmpegError) {
        let count = samples.count / Int(max(resampler.input.channels, 1))
        nextTime += Double(count) / Double(max(resampler.input.sampleRate, 1))
        try samples.span.withUnsafeBytes { (raw) throws(FFmpegError) in
            let plane: UnsafePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            try withUnsafePointer(to: plane) { (planes) throws(FFmpegError) in try push(planes, count: count) }
        }
    }

    /// Drains the resampler, the FIFO and the encoder into the muxer.
    ///
    /// A resampler keeps its filter's length of the last samples, and a drain gives back a part
    /// of them, none of a source of a few samples (a WAV of ten at 8 kHz; ffmpeg's `aresample`
    /// gives none either): silence after them brings the rest out, and what comes after the
    /// audio's end (``nextTime``) is left out, so the clip is as long as its source.
    func finish() throws(FFmpegError) {
        let end = Int((nextTime * Double(resampler.output.sampleRate)).rounded())
        let limit = convertedSamples < end ? end : .max
        if convertedSamples < end {
            let silence = try Frame.silence(samples: 1_024, format: resampler.input)
            for _ in 0..<8 where convertedSamples < end {
                try push(silence.audioPlanes, count: silence.sampleCount, limit: limit)
            }
        }
        try push(nil, count: 0, limit: limit)
        try encodeWholeFrames(flushing: true)
        try encoder.encode(nil, into: muxer, stream: streamIndex, using: packet)
    }

    private func encodeWholeFrames(flushing: Bool) throws(FFmpegError) {
        let size = encoder.frameSize
        while fifo.count >= size || (flushing && fifo.count > 0) {
            try fifo.read(count: min(size, fifo.count), into: frame)
            frame.pts = encodedSamples
            encodedSamples += Int64(frame.sampleCount)
            try encoder.encode(frame, into: muxer, stream: streamIndex, using: packet)
        }
    }
}

@available(*, unavailable)
extension AACEncoderStage: Sendable {}
