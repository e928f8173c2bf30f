import Foundation
internal import CFFmpeg

/// A camera opened for capture, delivering yuv420p pictures of the wanted size: a V4L2 device
/// through libavdevice's `v4l2` input, or the synthetic test camera (libavfilter's `testsrc2`, a
/// moving pattern with a running clock, through the `lavfi` input) paced to the wall clock, so
/// both go through the same decode, scale, encode and mux path.
///
/// Lives on the camera's capture thread. Pictures are decoded (MJPEG or raw), and scaled with
/// libswscale only when the camera's size or pixel format is not the wanted one.
final class CameraInput {
    private let input: Demuxer
    private let decoder: Decoder
    private let streamIndex: Int32
    private let packet: Packet
    private var scaler: Scaler?
    let width: Int32
    let height: Int32
    /// For the test camera, which delivers as fast as it can: the clock's time of its first
    /// picture's timestamp; each picture is handed out when its timestamp is due.
    private let paced: Bool
    private var pacingOrigin: ContinuousClock.Instant?
    /// Pictures decoded but not handed out yet.
    private var ready: [Frame] = []

    /// Opens `source` asking for `width` x `height` (even) at `frameRate`; a V4L2 camera is
    /// `device`, as ``Cameras/resolve(_:)`` found it.
    init(_ source: CameraSource, device: CameraDevice?, width: Int, height: Int, frameRate: Int) throws(FFmpegError) {
        input = try Self.open(source, device: device, width: width, height: height, frameRate: frameRate)
        guard let video = input.info.streams.first(where: { $0.kind == .video }) else { throw FFmpegError.streamNotFound }
        streamIndex = Int32(video.index)
        decoder = try Decoder(stream: streamIndex, of: input)
        packet = try Packet()
        self.width = Int32(width)
        self.height = Int32(height)
        paced = source == .test
    }

    /// Opens the camera's input: the one place that decides how a device is opened. A V4L2
    /// device is opened by its path in the mode ``CameraMode/best(in:width:height:fps:)`` picks
    /// from what it offers (libavdevice's options `input_format`, `video_size` and `framerate`;
    /// the pictures are scaled to the wanted size afterwards when the mode's differs), or, when it
    /// lists no mode, asked for the wanted size and rate directly; the test camera is `testsrc2`
    /// at exactly that size and rate. The corresponding C function is `avformat_open_input`.
    static func open(_ source: CameraSource, device: CameraDevice?, width: Int, height: Int,
                     frameRate: Int) throws(FFmpegError) -> Demuxer {
        switch source {
        case .test:
            return try Demuxer(device: "testsrc2=size=\(width)x\(height):rate=\(frameRate)", format: "lavfi")
        case .device(let path):
            return try Demuxer(device: device?.path ?? path, format: "v4l2",
                                 options: v4l2Options(for: device, width: width, height: height, frameRate: frameRate))
        }
    }

    /// libavdevice's v4l2 options for a camera: the mode ``CameraMode/best(in:width:height:fps:)``
    /// picks from those `device` offers, or the wanted size and rate when it lists none.
    static func v4l2Options(for device: CameraDevice?, width: Int, height: Int, frameRate: Int) -> [String: String] {
        guard let device, let choice = CameraMode.best(in: device.modes, width: width, height: height, fps: Double(frameRate)) else {
            return ["video_size": "\(width)x\(height)", "framerate": String(frameRate)]
        }
        var options = ["video_size": "\(choice.mode.width)x\(choice.mode.height)",
                       "framerate": CameraMode.format(choice.frameRate)]
        if let format = inputFormat(choice.mode.pixelFormat) { options["input_format"] = format }
        return options
    }

    /// libavdevice's name for a V4L2 pixel format (its `input_format` option), for the formats a
    /// webcam offers; nil leaves the choice to the driver.
    static func inputFormat(_ fourCC: String) -> String? {
        switch fourCC {
        case "MJPG", "JPEG": "mjpeg"
        case "YUYV": "yuyv422"
        case "UYVY": "uyvy422"
        case "NV12": "nv12"
        case "YU12": "yuv420p"
        case "H264": "h264"
        default: nil
        }
    }

    /// The next picture, yuv420p of the wanted size, in a frame of its own (the caller may keep
    /// it); nil when the camera has nothing more to give. Blocks until the camera delivers it (the
    /// test camera: until it is due).
    func next() throws(FFmpegError) -> Frame? {
        while ready.isEmpty {
            guard try input.read(into: packet) else { return nil }
            defer { packet.unref() }
            guard packet.streamIndex == streamIndex else { continue }
            let due = input.timeSpan(of: packet)?.start
            let frame = try Frame()
            _ = try decoder.decode(packet, into: frame) { (decoded) throws(FFmpegError) in
                ready.append(try scaled(decoded))
                return .next
            }
            if paced, let due, !ready.isEmpty { wait(until: due) }
        }
        return ready.removeFirst()
    }

    /// A decoded picture as a new frame of the wanted size in yuv420p; the decoder's own when it
    /// already is, moved out so the decoder's next picture goes elsewhere.
    private func scaled(_ decoded: Frame) throws(FFmpegError) -> Frame {
        guard decoded.width != width || decoded.height != height || decoded.pixelFormat != AV_PIX_FMT_YUV420P else {
            let picture = try Frame()
            av_frame_move_ref(picture.pointer, decoded.pointer)
            return picture
        }
        if scaler == nil { scaler = try Scaler(from: decoded, to: width, height, format: .yuv420p) }
        let picture = try scaler!.scale(decoded)
        decoded.unref()
        return picture
    }

    /// Sleeps until the picture stamped `seconds` (from the test pattern's start) is due.
    private func wait(until seconds: Double) {
        let now = ContinuousClock.now
        let origin = pacingOrigin ?? now - .seconds(seconds)
        pacingOrigin = origin
        let due = origin + .seconds(seconds)
        if due > now { Thread.sleep(forTimeInterval: (due - now) / .seconds(1)) }
    }
}

@available(*, unavailable)
extension CameraInput: Sendable {}
