import Foundation

/// Re-encodes a media file into the library's formats in one pass: its video (if any) to H.264
/// (libx264, yuv420p, even size, rotation kept), its audio to AAC 48 kHz in its own channels up
/// to stereo (mono stays mono, stereo stays stereo, more channels are mixed down to stereo)
/// timed by its samples from its first timestamp, in a normal MP4 with its index up front.
enum Transcoder {
    /// Re-encodes the file at `source`, opened by its path (a file outside the library), its
    /// decoded sound held in `sound` too.
    static func transcode(_ source: URL, into destination: MediaFile, container: Container, holding sound: HeldSound? = nil,
                          until stopped: () -> Bool = { false }) throws {
        try transcode(Demuxer(url: source), into: destination, container: container, holding: sound, until: stopped)
    }

    /// Re-encodes `input` (opened by a path or through a descriptor) from where it stands.
    /// `stopped` is asked at every frame: once it says yes, the transcode ends and throws
    /// `CancellationError` (an import given up). With `sound`, the audio as it is decoded, before
    /// it is encoded, goes there too at the transcriber's rate (``HeldSound``), whole once the
    /// transcode is.
    static func transcode(_ input: Demuxer, into destination: MediaFile, container: Container, holding sound: HeldSound? = nil,
                          until stopped: () -> Bool = { false }) throws {
        let info = input.info
        let muxer = try Muxer(writingTo: destination, format: container.formatName)
        try muxer.closing {
            var decoders: [Decoder] = []
            var video: H264EncoderStage?
            var audio: AACEncoderStage?
            var speech: Resampler?
            if let stream = info.videoStream {
                let index = Int32(stream.index)
                decoders.append(try Decoder(stream: index, of: input))
                video = try H264EncoderStage(stream, of: input, into: muxer)
            }
            if let stream = info.audioStream {
                let decoder = try Decoder(stream: Int32(stream.index), of: input)
                decoders.append(decoder)
                let channels = min(max(Int(decoder.channelCount), 1), 2)
                let resampler = try Resampler(decoding: decoder, to: .floatPlanar(sampleRate: 48_000, channels: channels), timed: true)
                // Mono sound alone at the recordings' rate; stereo, or sound beside video, at 128 kb/s.
                let bitRate = channels == 1 && video == nil ? 96_000 : 128_000
                audio = try AACEncoderStage(muxer: muxer, resampler: resampler, bitRate: bitRate)
                if sound != nil {
                    speech = try Resampler(decoding: decoder, to: .floatInterleaved(sampleRate: SpeechAudio.sampleRate, channels: 1))
                }
            }
            guard !decoders.isEmpty else { throw FFmpegError.streamNotFound }
            try muxer.writeHeader(options: ["movflags": "+faststart"])
            let videoIndex = info.videoStream.map { Int32($0.index) }
            let walked = try input.walk(decoding: decoders, frames: { (decoder, frame) throws(FFmpegError) in
                if stopped() { return .stop }
                if decoder.streamIndex == videoIndex {
                    try video?.push(frame)
                } else {
                    try audio?.push(frame, at: decoder.seconds(of: frame))
                    if let speech { sound?.append(try speech.interleavedFloats(from: frame)) }
                }
                return .next
            })
            if walked == .stop { throw CancellationError() }
            try video?.finish()
            try audio?.finish()
            if let speech { sound?.append(try speech.interleavedFloats(from: nil)) }
        }
        sound?.finish()
    }
}
