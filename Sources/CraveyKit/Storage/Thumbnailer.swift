import Foundation
internal import CFFmpeg

/// Makes a video's JPEG thumbnail: 320 px wide, aspect kept, rotation metadata honoured, taken at
/// 10% of the duration (never past 95%), skipping near-black frames, the first frame as a fallback.
enum Thumbnailer {
    static let width: Int32 = 320
    /// Mean full-range luma below which a frame counts as black (a fade-in, a covered lens).
    static let blackLevel = 20.0
    /// How many frames after the target to try before falling back to the first frame.
    static let framesToTry = 90

    static func jpeg(forVideoAt url: URL) throws(CraveyError) -> Data {
        let input = try MediaProbe.open(url)
        let info = input.info
        guard let stream = info.videoStream else {
            throw CraveyError(.undecodableMedia, "\(url.path) has no video to make a thumbnail from.")
        }
        do throws(FFmpegError) {
            let index = Int32(stream.index)
            let decoder = try Decoder(stream: index, of: input)
            let duration = info.containerDuration ?? stream.duration ?? 0
            let target = min(duration * 0.10, duration * 0.95)
            let size = thumbnailSize(width: Int32(stream.width ?? 0), height: Int32(stream.height ?? 0),
                                     rotation: stream.rotation)
            var picture: Frame?
            if target > 0, (try? input.seek(to: target)) != nil {
                decoder.flush()
                picture = try firstBright(input, decoder, index, after: target, size: size, rotation: stream.rotation)
            }
            if picture == nil {
                try input.seek(to: 0)
                decoder.flush()
                picture = try firstBright(input, decoder, index, after: 0, size: size, rotation: stream.rotation,
                                          acceptDark: true)
            }
            guard let picture else { throw FFmpegError.invalidData }
            return try encodeJPEG(picture)
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot make a thumbnail of \(url.path): \(error.message).")
        }
    }

    /// The thumbnail's size: 320 wide, the displayed aspect kept, even height.
    static func thumbnailSize(width: Int32, height: Int32, rotation: Int) -> (width: Int32, height: Int32) {
        let (displayWidth, displayHeight) = rotation % 180 == 0 ? (width, height) : (height, width)
        guard displayWidth > 0, displayHeight > 0 else { return (Self.width, Self.width * 3 / 4) }
        let height = Int32((Double(Self.width) * Double(displayHeight) / Double(displayWidth) / 2).rounded()) * 2
        return (Self.width, max(height, 2))
    }

    /// Decodes frames from `after` seconds on and returns the first that is not near-black,
    /// scaled and rotated; with `acceptDark`, the first frame whatever it looks like.
    private static func firstBright(_ input: InputFile, _ decoder: Decoder, _ index: Int32, after seconds: Double,
                                    size: (width: Int32, height: Int32), rotation: Int,
                                    acceptDark: Bool = false) throws(FFmpegError) -> Frame? {
        let packet = try Packet()
        let frame = try Frame()
        let timeBase = av_q2d(input.timeBase(ofStream: index))
        var scaler: Scaler?
        var tried = 0
        var draining = false
        while tried < framesToTry {
            if !draining {
                if try input.read(into: packet) {
                    defer { packet.unref() }
                    guard packet.streamIndex == index else { continue }
                    _ = try decoder.send(packet)
                } else {
                    _ = try decoder.send(nil)
                    draining = true
                }
            }
            while try decoder.receive(into: frame) == .ready {
                let pts = frame.pointer.pointee.best_effort_timestamp
                if pts != noTimestamp, Double(pts) * timeBase < seconds - 0.001 { continue }
                let source = frame.pointer.pointee
                // Scale to the unrotated shape; rotation turns it into the displayed one.
                let scaledSize = rotation % 180 == 0 ? size : (size.height, size.width)
                if scaler == nil {
                    scaler = try Scaler(from: (source.width, source.height, AVPixelFormat(source.format)),
                                        to: scaledSize.0, scaledSize.1, format: AV_PIX_FMT_YUVJ420P)
                }
                let scaled = try scaler!.scale(frame)
                tried += 1
                if acceptDark || meanLuma(scaled) >= blackLevel {
                    return try rotate(scaled, by: rotation)
                }
            }
            if draining { break }
        }
        return nil
    }

    static func meanLuma(_ frame: Frame) -> Double {
        let picture = frame.pointer.pointee
        guard let plane = picture.data.0 else { return 0 }
        var sum = 0
        for row in 0..<Int(picture.height) {
            let line = plane + row * Int(picture.linesize.0)
            for column in 0..<Int(picture.width) { sum += Int(line[column]) }
        }
        return Double(sum) / Double(max(Int(picture.width * picture.height), 1))
    }

    /// Turns a YUV 4:2:0 picture clockwise by 90, 180 or 270 degrees.
    static func rotate(_ frame: Frame, by degrees: Int) throws(FFmpegError) -> Frame {
        guard degrees % 360 != 0 else { return frame }
        let source = frame.pointer.pointee
        let quarter = degrees % 180 != 0
        let output = try Frame()
        output.pointer.pointee.width = quarter ? source.height : source.width
        output.pointer.pointee.height = quarter ? source.width : source.height
        output.pointer.pointee.format = source.format
        try check(av_frame_get_buffer(output.pointer, 0), "av_frame_get_buffer")
        let target = output.pointer.pointee
        let planes = [(source.data.0, source.linesize.0, target.data.0, target.linesize.0, 1),
                      (source.data.1, source.linesize.1, target.data.1, target.linesize.1, 2),
                      (source.data.2, source.linesize.2, target.data.2, target.linesize.2, 2)]
        for (from, fromStride, to, toStride, divisor) in planes {
            guard let from, let to else { continue }
            let width = Int(source.width) / divisor, height = Int(source.height) / divisor
            for y in 0..<height {
                for x in 0..<width {
                    let (tx, ty): (Int, Int) = switch degrees % 360 {
                    case 90: (height - 1 - y, x)
                    case 180: (width - 1 - x, height - 1 - y)
                    default: (y, width - 1 - x)
                    }
                    to[ty * Int(toStride) + tx] = from[y * Int(fromStride) + x]
                }
            }
        }
        return output
    }

    private static func encodeJPEG(_ picture: Frame) throws(FFmpegError) -> Data {
        let quality: Int32 = 3
        let encoder = try Encoder(videoCodec: "mjpeg", width: picture.pointer.pointee.width,
                                  height: picture.pointer.pointee.height, pixelFormat: AV_PIX_FMT_YUVJ420P,
                                  timeBase: AVRational(num: 1, den: 25), frameRate: AVRational(num: 25, den: 1),
                                  globalHeader: false, quality: quality)
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
