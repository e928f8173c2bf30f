internal import CFFmpeg

extension Resampler {
    /// Converts a decoded frame (nil drains what is buffered) into samples of ``output``, which must
    /// be an interleaved format of 32-bit floats (``AudioFormat/floatInterleaved(sampleRate:channels:)``).
    /// The corresponding C function is `swr_convert`.
    func interleavedFloats(from frame: Frame?) throws(FFmpegError) -> [Float] {
        precondition(output.sampleFormat == AV_SAMPLE_FMT_FLT, "interleavedFloats needs an interleaved float output")
        let count = frame?.sampleCount ?? 0
        let capacity = outputCapacity(forInput: count)
        guard capacity > 0 else { return [] }
        let channels = Int(output.channels)
        var samples = [Float](repeating: 0, count: capacity * channels)
        let written = samples.withUnsafeMutableBytes { buffer -> Result<Int, FFmpegError> in
            let planes: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)]
            return planes.withUnsafeBufferPointer { planes in
                Result { () throws(FFmpegError) in
                    try convert(frame?.audioPlanes, count: count, into: planes.baseAddress!, capacity: capacity)
                }
            }
        }
        samples.removeLast((capacity - (try written.get())) * channels)
        return samples
    }
}
