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
    let width: Int32
    let height: Int32
    let format: AVPixelFormat

    /// A scaler from pictures shaped like `source` to `width` x `height` in `format`.
    /// The corresponding C function is `sws_getContext`.
    init(from source: Frame, to width: Int32, _ height: Int32, format picture: PictureFormat) throws(FFmpegError) {
        let format = picture.pixelFormat
        guard let context = sws_getContext(source.width, source.height, source.pixelFormat, width, height, format,
                                           SWS_BICUBIC, nil, nil, nil) else {
            throw FFmpegError(code: FFmpegError.invalidData.code, operation: "sws_getContext")
        }
        self.context = context
        self.width = width
        self.height = height
        self.format = format
    }

    deinit { sws_freeContext(context) }

    /// Scales a decoded picture into a new frame of this scaler's size and format.
    /// The corresponding C function is `sws_scale`.
    func scale(_ frame: Frame) throws(FFmpegError) -> Frame {
        let output = try Frame()
        try output.allocatePicture(width: width, height: height, format: format)
        let source = frame.pointer.pointee
        try withUnsafePointer(to: source.data) { (data) throws(FFmpegError) in
            try withUnsafePointer(to: source.linesize) { (lines) throws(FFmpegError) in
                try withUnsafeMutablePointer(to: &output.pointer.pointee.data) { (outData) throws(FFmpegError) in
                    try withUnsafeMutablePointer(to: &output.pointer.pointee.linesize) { (outLines) throws(FFmpegError) in
                        let inPlanes = UnsafeRawPointer(data).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                        let inStrides = UnsafeRawPointer(lines).assumingMemoryBound(to: Int32.self)
                        let outPlanes = UnsafeMutableRawPointer(outData).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
                        let outStrides = UnsafeRawPointer(outLines).assumingMemoryBound(to: Int32.self)
                        try check(sws_scale(context, inPlanes, inStrides, 0, source.height, outPlanes, outStrides), "sws_scale")
                    }
                }
            }
        }
        return output
    }
}

@available(*, unavailable)
extension Scaler: Sendable {}
