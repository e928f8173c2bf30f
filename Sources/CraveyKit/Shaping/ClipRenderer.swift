import Foundation

/// Renders a clip for someone else (`share`): its sound decoded, turned to the level cravey
/// plays it at, and encoded in the format a file's extension names; a video's pictures copied
/// as they are, less the encoder's notes in them (x264's SEI). The file says nothing of where it
/// comes from: no creation time, no encoder, no device, no cravey id; only a title when one is
/// asked for.
enum ClipRenderer {
    /// The formats a shared clip can take, by the extension that names them.
    enum Format: String, CaseIterable, Sendable {
        case m4a, opus, mp3, ogg, wav, mp4

        /// The format `url`'s extension names, nil for any other.
        init?(of url: URL) {
            self.init(rawValue: url.pathExtension.lowercased())
        }

        /// libavcodec's encoder, libavformat's muxer, and the bit rate for `channels` (1 or 2).
        var encoder: String {
            switch self {
            case .m4a, .mp4: "aac"
            case .opus: "libopus"
            case .mp3: "libmp3lame"
            case .ogg: "libvorbis"
            case .wav: "pcm_s16le"
            }
        }

        var muxer: String {
            switch self {
            case .m4a: "ipod"
            case .mp4: "mp4"
            case .opus: "opus"
            case .mp3: "mp3"
            case .ogg: "ogg"
            case .wav: "wav"
            }
        }

        func bitRate(channels: Int) -> Int {
            switch self {
            case .m4a, .mp4: channels == 1 ? 96_000 : 128_000
            case .opus: channels == 1 ? 64_000 : 96_000
            case .mp3: channels == 1 ? 96_000 : 160_000
            case .ogg: channels == 1 ? 80_000 : 128_000
            case .wav: 0
            }
        }
    }

    /// Renders `input` (read from its start), `duration` seconds of it, into `output` in
    /// `format`: its first audio stream through `volume` (`gain` dB) to the encoder's own sample
    /// format at 48 kHz in its channels up to stereo; for `.mp4`, its video stream copied too.
    /// `title` is the only tag written; `chapters`, a clip's markers, become the file's chapters,
    /// each up to the next (the last to the end; one at the very end makes none), titled by its
    /// label or "Marker N", after a chapter "Start" from 0 to the first when it is later (an MP4
    /// chapter track starts at 0 whatever it is told). `progress` gets the part done, 0...1, as
    /// it goes.
    static func render(_ input: Demuxer, duration: Double, gain: Double, format: Format, title: String?,
                       chapters: [ClipMarker] = [], into output: MediaFile, progress: (Double) -> Void) throws {
        let info = input.info
        guard let stream = info.audioStream else { throw FFmpegError.streamNotFound }
        let decoder = try Decoder(stream: Int32(stream.index), of: input)
        let sourceFormat = decoder.audioFormat
        let channels = min(max(Int(decoder.channelCount), 1), 2)
        let muxer = try Muxer(writingTo: output, format: format.muxer)
        muxer.writeOnly(tags: title.map { ["title": $0] } ?? [:])
        let end = ClipMarker.milliseconds(duration)
        try muxer.closing {
            var spans: [(start: Int64, end: Int64, title: String)] = []
            if let first = chapters.first, first.milliseconds > 0 { spans.append((start: 0, end: min(first.milliseconds, end), title: "Start")) }
            spans += chapters.enumerated().compactMap { index, marker in
                let next = min(index + 1 < chapters.count ? chapters[index + 1].milliseconds : end, end)
                return marker.milliseconds < next ? (start: marker.milliseconds, end: next, title: marker.label ?? "Marker \(index + 1)") : nil
            }
            try muxer.addChapters(spans)
            let rewrite = try SoundRewrite(input, decoder: decoder, into: muxer, copyingVideo: format == .mp4, withoutEncoderNotes: true)
            let encoder = try Encoder(AudioEncoding(codec: format.encoder, sampleRate: 48_000, channels: channels,
                                                    bitRate: format.bitRate(channels: channels), samples: .codecsFirst, bitExact: true),
                                      globalHeader: muxer.wantsGlobalHeader)
            let audio = try muxer.addStream(try encoder.parameters())
            try muxer.writeHeader(options: format == .m4a || format == .mp4 ? ["movflags": "+faststart"] : [:])
            let sampleFormat = encoder.sampleFormatName ?? "s16"
            let length = Int((duration * Double(sourceFormat.sampleRate)).rounded())
            var filters = "atrim=end_sample=\(length),volume=\(String(format: "%.2f", gain))dB,"
                + "aformat=sample_fmts=\(sampleFormat):sample_rates=48000:channel_layouts=\(channels == 1 ? "mono" : "stereo")"
            if encoder.frameSize > 0 { filters += ",asetnsamples=n=\(encoder.frameSize):p=0" }
            let graph = try AudioFilterGraph(decoding: decoder, filters: filters)
            let packet = try Packet()
            let filtered = try Frame()
            var encoded: Int64 = 0
            func encode() throws(FFmpegError) {
                try graph.drain(into: filtered) { (frame) throws(FFmpegError) in
                    frame.pts = encoded
                    encoded += Int64(frame.sampleCount)
                    try encoder.encode(frame, into: muxer, stream: audio, using: packet)
                }
            }
            _ = try rewrite.run(through: graph) { (fed) throws(FFmpegError) in
                try encode()
                progress(min(Double(fed) / Double(max(length, 1)), 1))
            }
            try graph.push(nil)
            try encode()
            try encoder.encode(nil, into: muxer, stream: audio, using: packet)
        }
    }
}
