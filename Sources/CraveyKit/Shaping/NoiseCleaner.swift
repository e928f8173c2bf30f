import Foundation

/// Takes the steady noise (a fan, traffic, the hiss of a room) out of a clip's sound with
/// FFmpeg's own filters, learning the noise from the clip itself: no profile to pick by hand.
///
/// The chain (``filters(stretch:noiseFloor:speechLevel:)``), chosen by measuring speech
/// (espeak-ng) mixed with pink noise at -68, -48 and -36 dBFS and speech at two levels:
/// - `highpass=f=80`: nothing of a voice is under 80 Hz, much of a fan's rumble is.
/// - `afftdn` (FFT denoiser) with its noise profile sampled (`sn start`/`sn stop`, sent by
///   `asendcmd`) over the clip's quietest stretch, and its noise floor `nf` set 10 dB above that
///   stretch's RMS level: at or below the real floor `afftdn` removes only 1-8 dB; 10 dB above
///   it, the noise drops by 13-20 dB where the profile is learnt and 20-40 dB after, speech
///   within 0.1 dB (0.8 dB with the voice only 13 dB above the noise). `nf` is kept 6 dB under
///   the clip's loudness, so a voice barely above its noise is not taken for it, and between
///   -80 and -20 dB (`afftdn`'s range): a clip without noise is left about as it was. `nr` is 40 dB;
///   above 30 dB it changed nothing in these measurements.
///
/// `afftdn` delays its output by its window's overlap (1,200 samples at 48 kHz in FFmpeg 5.1);
/// the delay is measured (``AudioFilterGraph/latency(of:decoding:)``), that much silence
/// is fed after the clip's end and that much of the output's start dropped, so the cleaned sound
/// lines up with the original sample for sample and keeps its length.
enum NoiseCleaner {
    /// How far under the clip's loudness its quietest stretch must be to be taken for noise (dB):
    /// closer, it is the voice itself (a clip whose pauses are digital silence), and the clip is
    /// left as it is.
    static let leastSeparation = 10.0

    /// What a clean-up measured: the noise's level before and after, as RMS over the stretch it
    /// was learnt from (dBFS), and the chain it ran.
    struct Result {
        var noiseFloorBefore: Double
        var noiseFloorAfter: Double
        var filters: String
    }

    /// The filter chain for a clip whose noise is learnt over `stretch` (seconds), measured at
    /// `noiseFloor` dBFS RMS there, with its voice at `speechLevel` (LUFS; nil when unknown).
    /// What `scripts/bench` runs alone with `ffmpeg -af` beside cravey.
    static func filters(stretch: Range<Double>, noiseFloor: Double, speechLevel: Double?) -> String {
        var floor = noiseFloor + 10
        if let speechLevel, speechLevel.isFinite { floor = min(floor, speechLevel - 6) }
        floor = min(max(floor.isFinite ? floor : -80, -80), -20)
        let commands = String(format: "%.3f afftdn sn start;%.3f afftdn sn stop", stretch.lowerBound, stretch.upperBound)
        return "highpass=f=80,asendcmd=c='\(commands)',afftdn=nr=40:nf=\(String(format: "%.1f", floor))"
    }

    /// The RMS level (dBFS) of the first audio stream of `input` over `stretch` seconds, all its
    /// channels together; -inf for digital silence. Decodes from a little before the stretch (the
    /// demuxer seeks there) to its end, placing samples by their frames' timestamps.
    static func level(of input: Demuxer, over stretch: Range<Double>) throws(FFmpegError) -> Double {
        guard let stream = input.info.audioStream else { throw FFmpegError.streamNotFound }
        let decoder = try Decoder(stream: Int32(stream.index), of: input)
        let rate = Double(decoder.audioFormat.sampleRate)
        let channels = Int(max(decoder.channelCount, 1))
        let resampler = try Resampler(decoding: decoder, to: .floatInterleaved(sampleRate: Int(rate), channels: channels))
        // A frame decodes whole only after the one before it: start a second early.
        if stretch.lowerBound > 1 { _ = try? input.seek(to: stretch.lowerBound - 1) }
        var next: Double?
        var sum = 0.0, count = 0
        try input.walk(decoding: [decoder], frames: { (decoder, frame) throws(FFmpegError) in
            let start = decoder.seconds(of: frame) ?? next ?? 0
            let samples = try resampler.interleavedFloats(from: frame)
            let frames = samples.count / channels
            next = start + Double(frames) / rate
            let first = max(Int(((stretch.lowerBound - start) * rate).rounded()), 0)
            let last = min(Int(((stretch.upperBound - start) * rate).rounded()), frames)
            if first < last {
                for index in first * channels..<last * channels { sum += Double(samples[index]) * Double(samples[index]) }
                count += (last - first) * channels
            }
            return start + Double(frames) / rate >= stretch.upperBound ? .stop : .next
        })
        return count == 0 || sum == 0 ? -.infinity : 10 * log10(sum / Double(count))
    }

    /// Cleans the sound of `input` (read from its start) into `output`, a new file in `format`
    /// (the clip's container): its audio through ``filters(stretch:noiseFloor:speechLevel:)``
    /// lined up and cut to `duration` seconds, encoded to AAC 48 kHz in its own channels up to
    /// stereo (96 kb/s mono, 128 kb/s otherwise, as an import); a video's pictures are copied.
    static func clean(_ input: Demuxer, duration: Double, stretch: Range<Double>, noiseFloor: Double, speechLevel: Double?,
                      into output: MediaFile, format: String) throws -> Result {
        let info = input.info
        guard let stream = info.audioStream else { throw FFmpegError.streamNotFound }
        let decoder = try Decoder(stream: Int32(stream.index), of: input)
        let rate = Int(decoder.audioFormat.sampleRate)
        let channels = min(max(Int(decoder.channelCount), 1), 2)
        let filters = filters(stretch: stretch, noiseFloor: noiseFloor, speechLevel: speechLevel)
        let delay = try AudioFilterGraph.latency(of: "afftdn=om=i", decoding: decoder)
        let length = Int((duration * Double(rate)).rounded())
        let layout = channels == 1 ? "mono" : "stereo"
        let graph = try AudioFilterGraph(decoding: decoder, filters: """
            \(filters),atrim=start_sample=\(delay):end_sample=\(delay + length),asetpts=N/SR/TB,\
            aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=\(layout),asetnsamples=n=1024:p=0
            """)

        let muxer = try Muxer(writingTo: output, format: format)
        var after = (sum: 0.0, count: 0)
        try muxer.closing {
            let rewrite = try SoundRewrite(input, decoder: decoder, into: muxer, copyingVideo: true)
            let encoder = try Encoder(AudioEncoding(codec: "aac", sampleRate: 48_000, channels: channels,
                                                    bitRate: channels == 1 && rewrite.video == nil ? 96_000 : 128_000),
                                      globalHeader: muxer.wantsGlobalHeader)
            let audio = try muxer.addStream(try encoder.parameters())
            try muxer.writeHeader(options: ["movflags": "+faststart"])
            let packet = try Packet()
            let filtered = try Frame()
            var encoded: Int64 = 0
            let (first, last) = (Int((stretch.lowerBound * 48_000).rounded()), Int((stretch.upperBound * 48_000).rounded()))
            func encode() throws(FFmpegError) {
                try graph.drain(into: filtered) { (frame) throws(FFmpegError) in
                    // The noise left over the stretch it was learnt from.
                    let count = frame.sampleCount
                    let from = max(first - Int(encoded), 0), to = min(last - Int(encoded), count)
                    if from < to {
                        for channel in 0..<channels {
                            let plane = UnsafeRawPointer(frame.audioPlanes[channel]!).assumingMemoryBound(to: Float.self)
                            for index in from..<to { after.sum += Double(plane[index]) * Double(plane[index]) }
                        }
                        after.count += (to - from) * channels
                    }
                    frame.pts = encoded
                    encoded += Int64(count)
                    try encoder.encode(frame, into: muxer, stream: audio, using: packet)
                }
            }
            let fed = try rewrite.run(through: graph) { (_) throws(FFmpegError) in try encode() }
            // The filter's delay, fed as silence, brings the clip's last samples out.
            let silence = try Frame.silence(samples: max(delay, 1), as: decoder)
            silence.pts = fed
            try graph.push(silence)
            try graph.push(nil)
            try encode()
            try encoder.encode(nil, into: muxer, stream: audio, using: packet)
        }
        let before = noiseFloor
        return Result(noiseFloorBefore: before, noiseFloorAfter: after.count == 0 || after.sum == 0 ? -.infinity : 10 * log10(after.sum / Double(after.count)),
                      filters: filters)
    }
}
