import Foundation
internal import CFFmpeg

/// Re-encodes a media file into the library's formats in one pass: its video (if any) to H.264
/// (libx264, yuv420p, even size, rotation kept), its audio to AAC 48 kHz (mono for audio-only
/// files, as recordings are; up to stereo beside video), in a normal MP4 with its index up front.
enum Transcoder {
    static func transcode(_ source: URL, to destination: URL, format: String) throws(FFmpegError) {
        let input = try InputFile(url: source)
        let info = input.info
        let muxer = try Muxer(url: destination, format: format)
        var video: VideoStage?
        var audio: (index: Int32, decoder: Decoder, stage: AACStage)?
        if let stream = info.videoStream {
            video = try VideoStage(stream, of: input, into: muxer)
        }
        if let stream = info.audioStream {
            let index = Int32(stream.index)
            let decoder = try Decoder(stream: index, of: input)
            let channels = video == nil ? 1 : min(max(decoder.channelCount, 1), 2)
            let resampler = try Resampler(decoding: decoder, to: AudioFormat(sampleFormat: AV_SAMPLE_FMT_FLTP,
                                                                              sampleRate: 48_000, channels: channels))
            audio = (index, decoder, try AACStage(muxer: muxer, resampler: resampler,
                                                  bitRate: video == nil ? 96_000 : 128_000))
        }
        guard video != nil || audio != nil else { throw FFmpegError.streamNotFound }
        try muxer.writeHeader(options: ["movflags": "+faststart"])

        let packet = try Packet()
        let frame = try Frame()
        while try input.read(into: packet) {
            defer { packet.unref() }
            if let video, packet.streamIndex == video.index {
                try video.decode(packet)
            } else if let audio, packet.streamIndex == audio.index {
                try audio.decoder.decode(packet, into: frame, audio.stage.push)
            }
        }
        try video?.decode(nil)
        try video?.finish()
        if let audio {
            try audio.decoder.decode(nil, into: frame, audio.stage.push)
            try audio.stage.finish()
        }
        try muxer.close()
    }
}

/// Decodes one video stream, scales it to yuv420p with an even size, and encodes it with libx264.
private final class VideoStage {
    let index: Int32
    private let decoder: Decoder
    private let encoder: Encoder
    private let muxer: Muxer
    private let streamIndex: Int32
    private var scaler: Scaler?
    private let frame: Frame
    private let packet: Packet
    private var nextPTS: Int64 = 0

    init(_ stream: StreamInfo, of input: InputFile, into muxer: Muxer) throws(FFmpegError) {
        index = Int32(stream.index)
        decoder = try Decoder(stream: index, of: input)
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
        frame = try Frame()
        packet = try Packet()
    }

    /// Decodes a packet (nil: the rest) and encodes every picture it yields.
    func decode(_ packet: Packet?) throws(FFmpegError) {
        try decoder.decode(packet, into: frame, encode)
    }

    /// Drains the encoder into the muxer; call after `decode(nil)`.
    func finish() throws(FFmpegError) {
        try encoder.encode(nil, into: muxer, stream: streamIndex, using: packet)
    }

    private func encode(_ frame: Frame) throws(FFmpegError) {
        let source = frame.pointer.pointee
        if scaler == nil {
            scaler = try Scaler(from: (source.width, source.height, AVPixelFormat(source.format)),
                                to: encoder.context.pointee.width, encoder.context.pointee.height,
                                format: AV_PIX_FMT_YUV420P)
        }
        let picture = try scaler!.scale(frame)
        // Timestamps must rise for the encoder; a missing or repeated one takes the next free.
        let pts = source.best_effort_timestamp
        picture.pts = pts != noTimestamp && pts >= nextPTS ? pts : nextPTS
        nextPTS = picture.pts + 1
        try encoder.encode(picture, into: muxer, stream: streamIndex, using: packet)
    }
}
