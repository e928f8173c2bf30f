import CraveyCore
import Foundation

extension LoudnessMeter {
    /// Measures the audio of a media file as the library plays it: its first audio stream,
    /// decoded at its own rate, a mono stream as dual mono and one of more than two channels
    /// mixed down to stereo (see ``forPlayback(sampleRate:channels:)``). Returns nil for a file
    /// with no audio stream (a silent video).
    ///
    /// Throws ``CraveyError``: `.notFound` when there is no file, `.undecodableMedia` when its
    /// audio does not decode. Blocking; run it off the cooperative pool.
    package static func measure(fileAt media: MediaLocation) throws(CraveyError) -> LoudnessMeasurement? {
        let url = media.url
        let input = try media.open()
        guard let stream = input.info.audioStream else { return nil }
        do {
            return try measure(stream: Int32(stream.index), of: input)
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot measure the loudness of \(url.path): its audio does not decode (\(error.message)). The file is damaged.",
                              advice: .checkLibrary, underlying: error)
        }
    }

    /// Decodes stream `index` of `input` from where it stands to its end through the meter.
    static func measure(stream index: Int32, of input: Demuxer) throws(FFmpegError) -> LoudnessMeasurement {
        let decoder = try Decoder(stream: index, of: input)
        let rate = Int(decoder.audioFormat.sampleRate)
        guard rate > 0 else { throw FFmpegError(code: FFmpegError.invalidData.code, operation: "sample rate") }
        let channels = min(max(Int(decoder.channelCount), 1), 2)
        let resampler = try Resampler(decoding: decoder, to: .floatInterleaved(sampleRate: rate, channels: channels))
        var meter = LoudnessMeter.forPlayback(sampleRate: rate, channels: channels)
        try input.walk(decoding: [decoder], frames: { (_, frame) throws(FFmpegError) in
            meter.append(try resampler.interleavedFloats(from: frame))
            return .next
        })
        meter.append(try resampler.interleavedFloats(from: nil))
        return meter.measurement
    }
}
