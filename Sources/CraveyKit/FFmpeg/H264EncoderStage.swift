internal import CFFmpeg

/// Turns decoded pictures into H.264 packets in one stream of a muxer: libswscale to yuv420p
/// with an even size -> libx264. Import feeds it the frames of a video stream's decoder; the
/// video recorder feeds it yuv420p pictures already of its size, one per frame of a constant rate.
final class H264EncoderStage {
    private let encoder: Encoder
    private let muxer: Muxer
    private let streamIndex: Int32
    private var scaler: Scaler?
    private let packet: Packet
    private var previousPTS: Int64?

    /// Adds an H.264 stream to `muxer` for `stream` of `input`, its size made even, its frame
    /// rate and time base kept, and its side data (the display matrix) copied.
    init(_ stream: StreamInfo, of input: Demuxer, into muxer: Muxer) throws(FFmpegError) {
        let index = Int32(stream.index)
        let width = Int32(stream.width ?? 0) & ~1, height = Int32(stream.height ?? 0) & ~1
        guard width > 0, height > 0 else { throw FFmpegError.invalidData }
        var rate = input.frameRate(ofStream: index)
        if rate.num <= 0 || rate.den <= 0 { rate = AVRational(num: 25, den: 1) }
        encoder = try Encoder(videoCodec: "libx264", width: width, height: height, pixelFormat: AV_PIX_FMT_YUV420P,
                              timeBase: input.timeBase(ofStream: index), frameRate: rate,
                              globalHeader: muxer.wantsGlobalHeader, options: ["preset": "veryfast", "crf": "23"])
        self.muxer = muxer
        streamIndex = try muxer.addStream(encoder.parameters())
        try muxer.copySideData(ofStream: index, of: input, to: streamIndex)
        packet = try Packet()
    }

    /// libx264's settings for a recording: a preset that keeps up in real time on a small
    /// machine, `zerolatency` (no B-frames and no look-ahead, so no picture waits in the encoder and
    /// a killed recording loses the least), and a keyframe every 2 seconds.
    static func recordingOptions(frameRate: Int32) -> [String: String] {
        ["preset": "veryfast", "tune": "zerolatency", "crf": "23", "g": String(2 * frameRate)]
    }

    /// Adds an H.264 stream to `muxer` for yuv420p pictures of `width` x `height` (even) arriving
    /// at `frameRate` a second, timed in frames.
    init(width: Int32, height: Int32, frameRate: Int32, into muxer: Muxer) throws(FFmpegError) {
        guard width > 0, height > 0, width % 2 == 0, height % 2 == 0, frameRate > 0 else { throw FFmpegError.invalidData }
        encoder = try Encoder(videoCodec: "libx264", width: width, height: height, pixelFormat: AV_PIX_FMT_YUV420P,
                              timeBase: AVRational(num: 1, den: frameRate), frameRate: AVRational(num: frameRate, den: 1),
                              globalHeader: muxer.wantsGlobalHeader, options: Self.recordingOptions(frameRate: frameRate))
        self.muxer = muxer
        streamIndex = try muxer.addStream(encoder.parameters())
        packet = try Packet()
    }

    /// Encodes a yuv420p picture of the stage's size, as frame number `index` (which must rise).
    /// The same picture may be encoded again as a later frame: the encoder keeps its own reference.
    func push(_ picture: Frame, frame index: Int64) throws(FFmpegError) {
        picture.pts = index
        // A decoder marks every raw picture as an I-frame, which libx264 would obey: its own choice.
        picture.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try encoder.encode(picture, into: muxer, stream: streamIndex, using: packet)
    }

    /// Scales and encodes a decoded picture.
    func push(_ frame: Frame) throws(FFmpegError) {
        if scaler == nil {
            scaler = try Scaler(from: frame, to: encoder.width, encoder.height, format: .yuv420p)
        }
        let picture = try scaler!.scale(frame)
        // Timestamps must rise for the encoder. A missing one (an elementary stream has few or
        // none) comes one frame at the stream's rate after the previous, as `-fflags +genpts`
        // does; a repeated one takes the next free tick, so the ones after it stay where they are.
        let pts = frame.bestEffortTimestamp
        if pts == noTimestamp {
            picture.pts = previousPTS.map { $0 + encoder.frameDuration } ?? 0
        } else {
            picture.pts = max(pts, previousPTS.map { $0 + 1 } ?? 0)
        }
        previousPTS = picture.pts
        try encoder.encode(picture, into: muxer, stream: streamIndex, using: packet)
    }

    /// Drains the encoder into the muxer; call after the last picture.
    func finish() throws(FFmpegError) {
        try encoder.encode(nil, into: muxer, stream: streamIndex, using: packet)
    }
}

@available(*, unavailable)
extension H264EncoderStage: Sendable {}
