internal import CFFmpeg

/// The picture formats cravey scales into.
enum PictureFormat {
    /// YUV 4:2:0 in video range, as libx264 wants it.
    case yuv420p
    /// YUV 4:2:0 in full range, as the `mjpeg` encoder wants it.
    case jpeg

    var pixelFormat: AVPixelFormat {
        switch self {
        case .yuv420p: AV_PIX_FMT_YUV420P
        case .jpeg: AV_PIX_FMT_YUVJ420P
        }
    }
}

/// An owned libswscale context converting pictures between sizes and pixel formats.
final class Scaler {
    private let context: OpaquePointer

    /// A scaler from pictures shaped like `source` to `width` x `height` in `format`.
    /// The corresponding C function is `sws_getContext`.
    init(from source: Frame, to width: Int32, _ height: Int32, format picture: PictureFormat) throws(FFmpegError) {
        guard let context = sws_getContext(source.width, source.height, source.pixelFormat, width, height,
                                           picture.pixelFormat, SWS_BICUBIC, nil, nil, nil) else {
            throw FFmpegError(code: FFmpegError.invalidData.code, operation: "sws_getContext")
        }
        self.context = context
    }

    deinit { sws_freeContext(context) }

    /// Scales a decoded picture into a new frame of this scaler's size and format, whose buffers
    /// libswscale allocates. The corresponding C function is `sws_scale_frame`.
    func scale(_ frame: Frame) throws(FFmpegError) -> Frame {
        let output = try Frame()
        try check(sws_scale_frame(context, output.pointer, frame.pointer), "sws_scale_frame")
        return output
    }
}

@available(*, unavailable)
extension Scaler: Sendable {}
