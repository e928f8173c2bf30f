import CraveyCore
import Foundation

/// A media file's audio as a speech recogniser hears it: 16 kHz, one channel (the channels
/// mixed), 32-bit floats, decoded and resampled by cravey's own FFmpeg layer, as the transcriber
/// (``Transcriber``) reads it on its stdin.
package enum SpeechAudio {
    /// The rate Whisper's models are trained on.
    package static let sampleRate = 16_000

    /// Decodes the first audio stream of `media` from its start to its end, handing `body` its
    /// samples a frame's worth at a time; false for a file with no audio stream (a silent
    /// video), `body` never called.
    ///
    /// Throws ``CraveyError``: `.notFound` when there is no file, `.undecodableMedia` when its
    /// audio does not decode, and whatever `body` throws. Blocking; run it off the cooperative pool.
    package static func decode(_ media: MediaLocation, _ body: ([Float]) throws -> Void) throws -> Bool {
        let url = media.url
        let input = try media.open()
        guard let stream = input.info.audioStream else { return false }
        let decoder: Decoder
        let resampler: Resampler
        do {
            decoder = try Decoder(stream: Int32(stream.index), of: input)
            resampler = try Resampler(decoding: decoder, to: .floatInterleaved(sampleRate: sampleRate, channels: 1))
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot hear the words of \(url.path): its audio does not decode (\(error.message)). The file is damaged.",
                              advice: .checkLibrary, underlying: error)
        }
        // `walk` takes a closure that throws FFmpeg's errors only: what `body` throws waits here.
        var stopped: (any Error)?
        do {
            try input.walk(decoding: [decoder], frames: { (_, frame) throws(FFmpegError) in
                let samples = try resampler.interleavedFloats(from: frame)
                do {
                    try body(samples)
                } catch {
                    stopped = error
                    return .stop
                }
                return .next
            })
            if let stopped { throw stopped }
            try body(try resampler.interleavedFloats(from: nil))
        } catch let error as FFmpegError {
            throw CraveyError(.undecodableMedia, "Cannot hear the words of \(url.path): its audio does not decode (\(error.message)). The file is damaged.",
                              advice: .checkLibrary, underlying: error)
        }
        return true
    }
}
