internal import CFFmpeg

/// An owned `AVFrame`: uncompressed audio samples or a video picture.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    /// The corresponding C function is `av_frame_alloc`.
    init() throws(FFmpegError) {
        guard let pointer = av_frame_alloc() else { throw FFmpegError.outOfMemory }
        self.pointer = pointer
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&pointer)
    }

    /// Number of audio samples per channel held in the frame.
    var sampleCount: Int { Int(pointer.pointee.nb_samples) }

    var pts: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }

    /// The frame's time as the decoder best guesses it, in the stream's time base.
    var bestEffortTimestamp: Int64 { pointer.pointee.best_effort_timestamp }

    var width: Int32 { pointer.pointee.width }
    var height: Int32 { pointer.pointee.height }
    var pixelFormat: AVPixelFormat { AVPixelFormat(pointer.pointee.format) }

    /// The first plane of audio samples, or of each channel for a planar format, as `swr_convert`
    /// and `av_audio_fifo_write` take them.
    var audioPlanes: UnsafePointer<UnsafePointer<UInt8>?> {
        UnsafeRawPointer(pointer.pointee.extended_data!).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
    }

    /// The same planes, to write into.
    var mutableAudioPlanes: UnsafePointer<UnsafeMutablePointer<UInt8>?> {
        UnsafeRawPointer(pointer.pointee.extended_data!).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
    }

    /// The mean of a picture's first plane: its luma, 0 (black) to 255, for a YUV picture.
    var meanLuma: Double {
        let picture = pointer.pointee
        guard let plane = picture.data.0 else { return 0 }
        var sum = 0
        for row in 0..<Int(picture.height) {
            let line = plane + row * Int(picture.linesize.0)
            for column in 0..<Int(picture.width) { sum += Int(line[column]) }
        }
        return Double(sum) / Double(max(Int(picture.width * picture.height), 1))
    }

    /// Drops the buffers so the frame can be reused. The corresponding C function is `av_frame_unref`.
    func unref() { av_frame_unref(pointer) }

    /// Allocates writable audio buffers for `samples` samples in the given format and layout.
    /// The corresponding C function is `av_frame_get_buffer`.
    func allocateAudio(samples: Int, format: AVSampleFormat, sampleRate: Int32,
                       layout: AVChannelLayout) throws(FFmpegError) {
        unref()
        pointer.pointee.nb_samples = Int32(samples)
        pointer.pointee.format = format.rawValue
        pointer.pointee.sample_rate = sampleRate
        var layout = layout
        try check(av_channel_layout_copy(&pointer.pointee.ch_layout, &layout), "av_channel_layout_copy")
        try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }
}

@available(*, unavailable)
extension Frame: Sendable {}
