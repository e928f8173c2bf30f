import Foundation

/// Where the decoder stage's samples come from: a file's audio stream, or silence.
protocol SampleSource {
    /// Hands samples from `position` on to `body` (samples, the position of the first) until it
    /// returns false (then false) or the clip ends (then true).
    func samples(from position: Double, _ body: ([Float], Double) -> Bool) throws -> Bool
}

/// Silence for a clip without an audio stream, in 50 ms chunks.
struct Silence: SampleSource {
    let format: (sampleRate: Int, channels: Int)
    let duration: Double

    func samples(from position: Double, _ body: ([Float], Double) -> Bool) throws -> Bool {
        let rate = Double(format.sampleRate)
        var frame = Int((position * rate).rounded())
        let end = Int((duration * rate).rounded())
        let chunk = format.sampleRate / 20
        while frame < end {
            let count = min(chunk, end - frame)
            guard body([Float](repeating: 0, count: count * format.channels), Double(frame) / rate) else { return false }
            frame += count
        }
        return true
    }
}

/// A file's audio stream, decoded and converted to the playback stream's format.
///
/// A seek lands on the packet at or before the position; samples before it are dropped, so the
/// first sample handed out is the one at the position.
final class AudioDecoding: SampleSource {
    private let url: URL
    private let input: Demuxer
    private let decoder: Decoder
    private let resampler: Resampler
    private let rate: Double
    private let channels: Int
    private var decodedAny = false

    /// Opens the file and its audio stream `stream`. Throws ``CraveyError``: `.notFound`, or
    /// `.undecodableMedia` when the file or its audio cannot be decoded.
    init(media: MediaLocation, stream: Int, format: AudioFormat) throws {
        url = media.url
        input = try media.open()
        do {
            decoder = try Decoder(stream: Int32(stream), of: input)
            resampler = try Resampler(decoding: decoder, to: format)
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot decode the audio of \(url.path) (\(error.message)). The file is damaged or in a format FFmpeg does not know.")
        }
        rate = Double(format.sampleRate)
        channels = Int(format.channels)
    }

    func samples(from position: Double, _ body: ([Float], Double) -> Bool) throws -> Bool {
        // Every generation seeks, the first included: a failed seek (an unseekable file) plays on
        // from where the input stands.
        _ = try unlessOutOfMemory { () throws(FFmpegError) in try input.seek(to: position) }
        decoder.flush()
        var next: Double?
        let step: WalkStep
        do {
            step = try input.walk(decoding: [decoder], frames: { (_, frame) throws(FFmpegError) -> WalkStep in
                var samples = try resampler.interleavedFloats(from: frame)
                decodedAny = true
                var start = next ?? decoder.seconds(of: frame) ?? position
                if start < position {
                    let drop = min(Int(((position - start) * rate).rounded()) * channels, samples.count)
                    samples.removeFirst(drop)
                    start += Double(drop / channels) / rate
                }
                next = start + Double(samples.count / channels) / rate
                guard !samples.isEmpty else { return .next }
                return body(samples, start) ? .next : .stop
            })
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot decode \(url.path) (\(error.message)). The file is damaged.")
        }
        if step == .next, !decodedAny {
            throw CraveyError(.undecodableMedia, "Cannot decode \(url.path): no frame of its audio decodes. The file is damaged.")
        }
        return step == .next
    }
}

@available(*, unavailable)
extension AudioDecoding: Sendable {}
