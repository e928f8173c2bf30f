internal import CFFmpeg

extension Resampler {
    /// Converts a decoded frame (nil drains what is buffered) into samples of ``output``, which must
    /// be an interleaved format of 32-bit floats (``AudioFormat/floatInterleaved(sampleRate:channels:)``).
    /// The corresponding C function is `swr_convert`.
    func interleavedFloats(from frame: Frame?) throws(FFmpegError) -> [Float] {
        try interleavedFloats(frame?.audioPlanes, count: frame?.sampleCount ?? 0)
    }

    /// Converts interleaved 16-bit samples of ``input`` (``AudioFormat/signed16(sampleRate:channels:)``,
    /// as a recording captures them) into samples of ``output``, an interleaved format of 32-bit floats.
    /// The corresponding C function is `swr_convert`.
    func interleavedFloats(fromInterleaved samples: [Int16]) throws(FFmpegError) -> [Float] {
        let count = samples.count / Int(max(input.channels, 1))
        return try samples.span.withUnsafeBytes { (raw) throws(FFmpegError) in
            let plane: UnsafePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return try withUnsafePointer(to: plane) { (planes) throws(FFmpegError) in try interleavedFloats(planes, count: count) }
        }
    }

    /// Converts `count` samples from `planes` (nil drains what is buffered) into interleaved floats.
    private func interleavedFloats(_ planes: UnsafePointer<UnsafePointer<UInt8>?>?, count: Int) throws(FFmpegError) -> [Float] {
        precondition(output.sampleFormat == AV_SAMPLE_FMT_FLT, "interleavedFloats needs an interleaved float output")
        let capacity = outputCapacity(forInput: count)
        guard capacity > 0 else { return [] }
        let channels = Int(output.channels)
        var samples = [Float](repeating: 0, count: capacity * channels)
        let written = samples.withUnsafeMutableBytes { buffer -> Result<Int, FFmpegError> in
            let out: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)]
            return out.withUnsafeBufferPointer { out in
                Result { () throws(FFmpegError) in
                    try convert(planes, count: count, into: out.baseAddress!, capacity: capacity)
                }
            }
        }
        samples.removeLast((capacity - (try written.get())) * channels)
        return samples
    }
}
