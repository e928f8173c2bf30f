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
    public static func measure(fileAt url: URL) throws(CraveyError) -> LoudnessMeasurement? {
        let input = try MediaProbe.open(url)
        guard let stream = input.info.audioStream else { return nil }
        do {
            return try measure(stream: Int32(stream.index), of: input)
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot measure the loudness of \(url.path): its audio does not decode (\(error.message)). The file is damaged; `cravey doctor` checks the library.")
        }
    }

    /// Decodes stream `index` of `input` from where it stands to its end through the meter.
    static func measure(stream index: Int32, of input: InputFile) throws(FFmpegError) -> LoudnessMeasurement {
        let decoder = try Decoder(stream: index, of: input)
        let rate = Int(decoder.audioFormat.sampleRate)
        guard rate > 0 else { throw FFmpegError(code: FFmpegError.invalidData.code, operation: "sample rate") }
        let channels = min(max(Int(decoder.channelCount), 1), 2)
        let resampler = try Resampler(decoding: decoder, to: .floatInterleaved(sampleRate: rate, channels: channels))
        var meter = LoudnessMeter.forPlayback(sampleRate: rate, channels: channels)
        var samples: [Float] = []
        func convert(_ planes: UnsafePointer<UnsafePointer<UInt8>?>?, count: Int) throws(FFmpegError) {
            let capacity = resampler.outputCapacity(forInput: count)
            guard capacity > 0 else { return }
            if samples.count < capacity * channels { samples = Array(repeating: 0, count: capacity * channels) }
            let written = try samples.withUnsafeMutableBufferPointer { (buffer) throws(FFmpegError) -> Int in
                let plane = UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UInt8.self)
                return try withUnsafePointer(to: Optional(plane)) { (out) throws(FFmpegError) -> Int in
                    try resampler.convert(planes, count: count, into: out, capacity: capacity)
                }
            }
            samples.withUnsafeBufferPointer { meter.append(UnsafeBufferPointer(rebasing: $0[..<(written * channels)])) }
        }
        try input.walk(decoding: [decoder], frames: { (_, frame) throws(FFmpegError) in
            try convert(frame.audioPlanes, count: frame.sampleCount)
            return .next
        })
        try convert(nil, count: 0)
        return meter.measurement
    }
}
