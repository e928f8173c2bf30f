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
