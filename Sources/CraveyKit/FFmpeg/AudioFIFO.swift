internal import CFFmpeg

/// An owned `AVAudioFifo`: collects converted samples until a whole encoder frame is ready.
final class AudioFIFO {
    private let fifo: OpaquePointer
    let format: AudioFormat

    /// The corresponding C function is `av_audio_fifo_alloc`.
    init(format: AudioFormat, capacity: Int) throws(FFmpegError) {
        guard let fifo = av_audio_fifo_alloc(format.sampleFormat, format.channels, Int32(capacity)) else {
            throw FFmpegError.outOfMemory
        }
        self.fifo = fifo
        self.format = format
    }

    deinit { av_audio_fifo_free(fifo) }

    /// Samples per channel waiting. The corresponding C function is `av_audio_fifo_size`.
    var count: Int { Int(av_audio_fifo_size(fifo)) }

    /// Appends the first `count` samples of a frame. The corresponding C function is `av_audio_fifo_write`.
    func write(_ frame: Frame, count: Int) throws(FFmpegError) {
        let planes = UnsafeRawPointer(frame.mutableAudioPlanes).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        let written = try check(av_audio_fifo_write(fifo, UnsafeMutablePointer(mutating: planes), Int32(count)),
                                "av_audio_fifo_write")
        if written < count { throw FFmpegError.outOfMemory }
    }

    /// Moves up to `count` samples into a freshly allocated frame. The corresponding C function is `av_audio_fifo_read`.
    func read(count: Int, into frame: Frame) throws(FFmpegError) {
        try frame.allocateAudio(samples: count, format: format)
        let planes = UnsafeRawPointer(frame.mutableAudioPlanes).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        let read = try check(av_audio_fifo_read(fifo, UnsafeMutablePointer(mutating: planes), Int32(count)),
                             "av_audio_fifo_read")
        frame.pointer.pointee.nb_samples = read
    }
}

@available(*, unavailable)
extension AudioFIFO: Sendable {}
