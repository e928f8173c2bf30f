internal import CFFmpeg

/// Turns decoded pictures into H.264 packets in one stream of a muxer: libswscale to yuv420p
/// with an even size -> libx264. Import feeds it the frames of a video stream's decoder.
final class H264EncoderStage {
    private let encoder: Encoder
    private let muxer: Muxer
    private let streamIndex: Int32
    private var scaler: Scaler?
    private let packet: Packet
    private var nextPTS: Int64 = 0

    /// Adds an H.264 stream to `muxer` for stream `index` of `input`, its size made even, its
    /// frame rate and time base kept, and its side data (the display matrix) copied.
    init(stream index: Int32, of input: InputFile, into muxer: Muxer) throws(FFmpegError) {
        let stream = input.info.streams[Int(index)]
        let width = Int32(stream.width ?? 0) & ~1, height = Int32(stream.height ?? 0) & ~1
        guard width > 0, height > 0 else { throw FFmpegError.invalidData }
        var rate = input.frameRate(ofStream: index)
        if rate.num <= 0 || rate.den <= 0 { rate = AVRational(num: 25, den: 1) }
        encoder = try Encoder(videoCodec: "libx264", width: width, height: height, pixelFormat: AV_PIX_FMT_YUV420P,
                              timeBase: input.timeBase(ofStream: index), frameRate: rate,
                              globalHeader: muxer.wantsGlobalHeader, options: ["preset": "veryfast", "crf": "23"])
        self.muxer = muxer
        streamIndex = try muxer.addStream(for: encoder)
        try muxer.copySideData(ofStream: index, of: input, to: streamIndex)
        packet = try Packet()
    }

    /// Scales and encodes a decoded picture.
    func push(_ frame: Frame) throws(FFmpegError) {
        if scaler == nil {
            scaler = try Scaler(from: frame, to: encoder.width, encoder.height, format: .yuv420p)
        }
        let picture = try scaler!.scale(frame)
        // Timestamps must rise for the encoder; a missing or repeated one takes the next free.
        let pts = frame.bestEffortTimestamp
        picture.pts = pts != noTimestamp && pts >= nextPTS ? pts : nextPTS
        nextPTS = picture.pts + 1
        try encoder.encode(picture, into: muxer, stream: streamIndex, using: packet)
    }

    /// Drains the encoder into the muxer; call after the last picture.
    func finish() throws(FFmpegError) {
        try encoder.encode(nil, into: muxer, stream: streamIndex, using: packet)
    }
}

@available(*, unavailable)
extension H264EncoderStage: Sendable {}
