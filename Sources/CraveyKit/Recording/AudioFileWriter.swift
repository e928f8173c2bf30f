import Foundation
internal import CFFmpeg

/// Encodes signed 16-bit PCM to AAC in a fragmented MP4 that stays playable on disk at every
/// moment (half-second fragments, flushed as written: a crash loses at most the last half second).
///
/// Lives on the recording's encoder thread; nothing else touches it.
final class AudioFileWriter {
    private let muxer: Muxer
    private let stage: AACStage
    private let channels: Int

    /// Opens the encoder and writes the header of a fragmented MP4 at `url`.
    init(url: URL, sampleRate: Int, channels: Int, bitRate: Int, format: String = "ipod") throws(FFmpegError) {
        muxer = try Muxer(url: url, format: format)
        let input = AudioFormat(sampleFormat: AV_SAMPLE_FMT_S16, sampleRate: Int32(sampleRate), channels: Int32(channels))
        let output = AudioFormat(sampleFormat: AV_SAMPLE_FMT_FLTP, sampleRate: Int32(sampleRate), channels: Int32(channels))
        stage = try AACStage(muxer: muxer, resampler: try Resampler(from: input, to: output), bitRate: bitRate)
        self.channels = channels
        muxer.flushEveryPacket()
        try muxer.writeHeader(options: [
            "movflags": "+frag_keyframe+empty_moov+default_base_moof",
            "frag_duration": "500000",
        ])
    }

    /// Samples of encoder delay in front of the audio, hidden by an edit list after a rewrite.
    var primingSamples: Int64 { stage.primingSamples }

    /// Appends interleaved samples and writes every whole encoder frame they complete.
    func append(_ samples: [Int16]) throws {
        try samples.withUnsafeBytes { raw in
            var plane: UnsafePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            try withUnsafePointer(to: &plane) { planes in
                try stage.push(planes, count: samples.count / channels)
            }
        }
    }

    /// Drains the encoder and writes the trailer. The file is complete afterwards.
    func finish() throws {
        try stage.finish()
        try muxer.close()
    }
}

@available(*, unavailable)
extension AudioFileWriter: Sendable {}
