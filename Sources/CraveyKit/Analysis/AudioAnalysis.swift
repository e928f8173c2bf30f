import CraveyCore
import Foundation

/// What one decoding of a media file's audio measures, as the library plays it: its loudness
/// (``LoudnessMeter``), its waveform (``PeakMeter``), or both from the same samples.
///
/// A clip's audio is decoded once to be finished (an import, a recovered file, a recording's
/// loudness) or repaired, and that one walk feeds every meter that is wanted: the waveform of an
/// import costs no second decoding, only its min/max over samples already in memory.
package struct AudioAnalysis {
    package var loudness: LoudnessMeasurement?
    package var waveform: Waveform?

    /// Decodes the first audio stream of `media` once, from its start to its end, at its own
    /// rate, a mono stream as dual mono and one of more than two channels mixed down to stereo
    /// (see ``LoudnessMeter/forPlayback(sampleRate:channels:)``), measuring its loudness when
    /// `loudness` and its waveform when `waveform`. Nil for a file with no audio stream (a
    /// silent video).
    ///
    /// Throws ``CraveyError``: `.notFound` when there is no file, `.undecodableMedia` when its
    /// audio does not decode. Blocking; run it off the cooperative pool.
    package static func measure(_ media: MediaLocation, loudness: Bool, waveform: Bool) throws(CraveyError) -> AudioAnalysis? {
        let url = media.url
        let input = try media.open()
        guard let stream = input.info.audioStream else { return nil }
        do {
            return try measure(stream: Int32(stream.index), of: input, loudness: loudness, waveform: waveform)
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot measure the sound of \(url.path): its audio does not decode (\(error.message)). The file is damaged.",
                              advice: .checkLibrary, underlying: error)
        }
    }

    /// Decodes stream `index` of `input` from where it stands to its end through the meters asked for.
    private static func measure(stream index: Int32, of input: Demuxer, loudness: Bool, waveform: Bool) throws(FFmpegError) -> AudioAnalysis {
        let decoder = try Decoder(stream: index, of: input)
        let rate = Int(decoder.audioFormat.sampleRate)
        guard rate > 0 else { throw FFmpegError(code: FFmpegError.invalidData.code, operation: "sample rate") }
        let channels = min(max(Int(decoder.channelCount), 1), 2)
        let resampler = try Resampler(decoding: decoder, to: .floatInterleaved(sampleRate: rate, channels: channels))
        var meter = loudness ? LoudnessMeter.forPlayback(sampleRate: rate, channels: channels) : nil
        var peaks = waveform ? PeakMeter(sampleRate: rate, channels: channels) : nil
        func take(_ samples: [Float]) {
            samples.withUnsafeBufferPointer { samples in
                meter?.append(samples)
                peaks?.append(samples)
            }
        }
        try input.walk(decoding: [decoder], frames: { (_, frame) throws(FFmpegError) in
            take(try resampler.interleavedFloats(from: frame))
            return .next
        })
        take(try resampler.interleavedFloats(from: nil))
        return AudioAnalysis(loudness: meter?.measurement, waveform: peaks?.waveform)
    }
}

extension LoudnessMeter {
    /// Measures the loudness of a media file's audio as the library plays it
    /// (``AudioAnalysis/measure(_:loudness:waveform:)``); nil for a file with no audio stream.
    package static func measure(fileAt media: MediaLocation) throws(CraveyError) -> LoudnessMeasurement? {
        try AudioAnalysis.measure(media, loudness: true, waveform: false)?.loudness
    }
}
