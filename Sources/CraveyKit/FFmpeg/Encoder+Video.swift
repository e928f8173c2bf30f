import Foundation
internal import CFFmpeg

extension Encoder {
    /// Opens a video encoder (`mjpeg` for thumbnails, `libx264` for imports) with codec options
    /// such as `preset` or `crf`.
    convenience init(videoCodec name: String, width: Int32, height: Int32, pixelFormat: AVPixelFormat,
                     timeBase: AVRational, frameRate: AVRational, globalHeader: Bool, quality: Int32? = nil,
                     options: [String: String] = [:]) throws(FFmpegError) {
        try self.init(codec: name, globalHeader: globalHeader, options: options) { context in
            context.pointee.width = width
            context.pointee.height = height
            context.pointee.pix_fmt = pixelFormat
            context.pointee.time_base = timeBase
            context.pointee.framerate = frameRate
            if let quality {
                // A fixed quantiser (2 best .. 31 worst), as ffmpeg's -q:v sets it.
                context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
                context.pointee.global_quality = quality * FF_QP2LAMBDA
            }
        }
    }

    /// Encodes one full-range YUV 4:2:0 picture (``PictureFormat/jpeg``) as a JPEG with a fixed
    /// quantiser (2 best .. 31 worst). The corresponding encoder is FFmpeg's `mjpeg`.
    static func jpeg(_ picture: Frame, quality: Int32 = 3) throws(FFmpegError) -> Data {
        let encoder = try Encoder(videoCodec: "mjpeg", width: picture.width, height: picture.height,
                                  pixelFormat: AV_PIX_FMT_YUVJ420P, timeBase: AVRational(num: 1, den: 25),
                                  frameRate: AVRational(num: 25, den: 1), globalHeader: false, quality: quality)
        picture.pts = 0
        picture.pointer.pointee.quality = quality * FF_QP2LAMBDA
        _ = try encoder.send(picture)
        _ = try encoder.send(nil)
        let packet = try Packet()
        guard try encoder.receive(into: packet) == .ready, let bytes = packet.pointer.pointee.data else {
            throw FFmpegError.invalidData
        }
        return Data(bytes: bytes, count: Int(packet.pointer.pointee.size))
    }
}
