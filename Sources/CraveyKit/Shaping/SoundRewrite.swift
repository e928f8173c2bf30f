import Foundation

/// What every rewrite of a clip's sound (its shared copy, its cleaned version) does around its
/// filters: a video stream kept is copied packet by packet; the audio is decoded and pushed
/// through a filter graph, whose output the caller encodes as it comes.
struct SoundRewrite {
    private let input: Demuxer
    private let decoder: Decoder
    private let muxer: Muxer
    /// The video stream copied: its index in the input and in the output.
    let video: (index: Int32, target: Int32)?
    /// What the copied video's packets go through on their way: nothing, or a filter that drops
    /// the encoder's messages (``BitstreamFilter/withoutSEI(ofStream:of:)``).
    private let videoFilter: BitstreamFilter?

    /// A rewrite of `input`'s audio (decoded by `decoder`) into `muxer`, its first video stream
    /// copied too when `copyingVideo` and it has one; `withoutEncoderNotes` drops the SEI
    /// messages of an H.264 video on the way (where x264 names itself, its version and its
    /// settings), for a copy given to someone else. Adds the video stream to the muxer: call it
    /// before the audio's stream is added.
    init(_ input: Demuxer, decoder: Decoder, into muxer: Muxer, copyingVideo: Bool,
         withoutEncoderNotes: Bool = false) throws(FFmpegError) {
        (self.input, self.decoder, self.muxer) = (input, decoder, muxer)
        if copyingVideo, let picture = input.info.videoStream {
            let index = Int32(picture.index)
            videoFilter = withoutEncoderNotes ? try BitstreamFilter.withoutSEI(ofStream: index, of: input) : nil
            video = (index, try muxer.addStream(copying: index, of: input, through: videoFilter))
        } else {
            (video, videoFilter) = (nil, nil)
        }
    }

    /// Reads the input from its start: each audio frame, timed in samples from 0, is pushed
    /// into `graph`, then `pushed` gets the samples pushed so far (to drain the graph and encode
    /// what came out); the video's packets are written as they come. Returns the samples pushed.
    func run(through graph: AudioFilterGraph, pushed: (Int64) throws(FFmpegError) -> Void) throws(FFmpegError) -> Int64 {
        var fed: Int64 = 0
        try input.walk(decoding: [decoder], packets: { (packet) throws(FFmpegError) in
            guard let video, packet.streamIndex == video.index else { return .next }
            try muxer.write(copied: packet, of: input, to: video.target, through: videoFilter)
            return .next
        }, frames: { (_, frame) throws(FFmpegError) in
            frame.pts = fed
            fed += Int64(frame.sampleCount)
            try graph.push(try frame.moved())
            try pushed(fed)
            return .next
        })
        if let video, let videoFilter {
            try muxer.flush(videoFilter, ofStream: video.index, of: input, to: video.target)
        }
        return fed
    }
}
