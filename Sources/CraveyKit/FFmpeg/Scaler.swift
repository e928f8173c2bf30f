internal import CFFmpeg

/// An owned libswscale context converting pictures between sizes and pixel formats.
final class Scaler {
    private let context: OpaquePointer
    let width: Int32
    let height: Int32
    let format: AVPixelFormat

    /// The corresponding C function is `sws_getContext`.
    init(from source: (width: Int32, height: Int32, format: AVPixelFormat),
         to width: Int32, _ height: Int32, format: AVPixelFormat) throws(FFmpegError) {
        guard let context = sws_getContext(source.width, source.height, source.format, width, height, format,
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
        output.pointer.pointee.width = width
        output.pointer.pointee.height = height
        output.pointer.pointee.format = format.rawValue
        try check(av_frame_get_buffer(output.pointer, 0), "av_frame_get_buffer")
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
