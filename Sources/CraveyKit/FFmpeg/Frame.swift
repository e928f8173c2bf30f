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

    /// True for a picture in planar YUV 4:2:0 (video or full range), which a renderer takes as it is.
    var isPlanarYUV420: Bool { [AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P].contains(pixelFormat) }

    /// How a YUV picture's values turn into colours: full range (JPEG) or video range, and the
    /// BT.709 matrix (else BT.601, as libswscale assumes when the stream does not say).
    var colorMatrix: (fullRange: Bool, bt709: Bool) {
        (pointer.pointee.color_range == AVCOL_RANGE_JPEG || pixelFormat == AV_PIX_FMT_YUVJ420P,
         pointer.pointee.colorspace == AVCOL_SPC_BT709)
    }

    /// A planar picture's first three planes (Y, U, V) and the bytes from one line to the next, for
    /// a renderer to copy from while the frame lives.
    var planes: [(bytes: UnsafePointer<UInt8>, lineSize: Int32)] {
        let picture = pointer.pointee
        return zip([picture.data.0, picture.data.1, picture.data.2], [picture.linesize.0, picture.linesize.1, picture.linesize.2])
            .compactMap { plane, lineSize in plane.map { (UnsafePointer($0), lineSize) } }
    }

    /// Moves the picture or samples into a new frame, leaving this one empty for the next
    /// decode. The corresponding C function is `av_frame_move_ref`.
    func moved() throws(FFmpegError) -> Frame {
        let frame = try Frame()
        av_frame_move_ref(frame.pointer, pointer)
        return frame
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

    /// Allocates writable audio buffers for `samples` samples in `format`, in the usual layout
    /// for its channels.
    func allocateAudio(samples: Int, format: AudioFormat) throws(FFmpegError) {
        try allocateAudio(samples: samples, format: format.sampleFormat, sampleRate: format.sampleRate, layout: format.layout)
    }

    /// A frame of `samples` samples of silence as `decoder` gives its sound: its sample format,
    /// rate and channel layout. The corresponding C function is `av_samples_set_silence`.
    static func silence(samples: Int, as decoder: Decoder) throws(FFmpegError) -> Frame {
        let format = decoder.audioFormat
        return try silence(samples: samples, format: format.sampleFormat, sampleRate: format.sampleRate, layout: decoder.channelLayout)
    }

    /// A frame of `samples` samples of silence in `format` (the usual layout for its channels).
    static func silence(samples: Int, format: AudioFormat) throws(FFmpegError) -> Frame {
        try silence(samples: samples, format: format.sampleFormat, sampleRate: format.sampleRate, layout: format.layout)
    }

    private static func silence(samples: Int, format: AVSampleFormat, sampleRate: Int32,
                                layout: AVChannelLayout) throws(FFmpegError) -> Frame {
        let frame = try Frame()
        try frame.allocateAudio(samples: samples, format: format, sampleRate: sampleRate, layout: layout)
        let audio = frame.pointer.pointee
        _ = av_samples_set_silence(audio.extended_data, 0, audio.nb_samples, audio.ch_layout.nb_channels, format)
        return frame
    }
}

@available(*, unavailable)
extension Frame: Sendable {}
