import Foundation
internal import CFFmpeg

extension Muxer {
    /// Copies the part of `source` from `start` to `end` seconds into `output`, a new MP4, packet
    /// for packet, without re-encoding a frame: the cut is made by the MP4 edit list, exact to
    /// the sample for sound and to the picture for video.
    ///
    /// The frames kept are whole, as they were encoded; the edit list says which of their samples
    /// play. Sound keeps, from each audio stream, the frame that holds `start` and the one before
    /// it (an AAC frame decodes from its own and its predecessor's data: that one frame of preroll
    /// makes the first sample kept decode exactly as it did), up to the frame that holds the last
    /// sample before `end`, whose duration is cut to end there. Video keeps the pictures from the
    /// keyframe at or before `start` (a picture decodes from its keyframe on) up to the last one
    /// shown before `end`. The edit list (in a movie time scale of 1/48000 s, so exact to the
    /// sample, not the default millisecond) hides what is before `start` and after `end`: at
    /// most one audio frame (1024 samples, 21 ms) of the cut sound on each side, and the
    /// pictures between the keyframe and `start`, stay in the file unplayed.
    static func trim(_ source: Demuxer, into output: MediaFile, format: String, from start: Double, to end: Double) throws {
        let muxer = try Muxer(writingTo: output, format: format)
        try muxer.closing {
            var cuts: [Int32: StreamCut] = [:]
            for stream in source.info.streams where (stream.kind == .audio || stream.kind == .video) && !stream.isAttachedPicture {
                let index = Int32(stream.index)
                let timeBase = source.timeBase(ofStream: index)
                let target = try muxer.addStream(copying: index, of: source)
                cuts[index] = StreamCut(target: target, timeBase: timeBase, isVideo: stream.kind == .video,
                                        start: av_rescale_q(Int64((start * 1_000_000).rounded()), AVRational(num: 1, den: 1_000_000), timeBase),
                                        end: av_rescale_q(Int64((end * 1_000_000).rounded()), AVRational(num: 1, den: 1_000_000), timeBase))
            }
            guard !cuts.isEmpty else { throw FFmpegError.streamNotFound }
            try muxer.writeHeader(options: ["movflags": "+faststart", "movie_timescale": "48000"])
            try source.walk(packets: { (packet) throws(FFmpegError) in
                guard var cut = cuts[packet.streamIndex] else { return .next }
                try cut.take(packet, into: muxer)
                cuts[packet.streamIndex] = cut
                // Every stream past its end: the rest of the file is not read.
                return cuts.values.allSatisfy(\.isDone) ? .stop : .next
            })
            for (index, var cut) in cuts {
                try cut.finish(into: muxer)
                cuts[index] = cut
            }
        }
    }
}

/// What one stream of a ``Muxer/trim(_:into:format:from:to:)`` keeps, packet by packet, in
/// file order: the state of its cut.
private struct StreamCut {
    /// The stream's index in the output, its time base, and the cut in it.
    let target: Int32
    let timeBase: AVRational
    let isVideo: Bool
    let start: Int64
    let end: Int64
    /// Before the cut's start: the audio frame before the current one (the preroll), or the
    /// video's pictures from the last keyframe.
    private var pending: [Packet] = []
    /// Pictures shown at or after the end that a picture before it, still to come, may need (a
    /// B-frame's reference); dropped at the next keyframe.
    private var held: [Packet] = []
    private(set) var isStarted = false
    private(set) var isDone = false

    init(target: Int32, timeBase: AVRational, isVideo: Bool, start: Int64, end: Int64) {
        self.target = target
        self.timeBase = timeBase
        self.isVideo = isVideo
        self.start = start
        self.end = end
    }

    /// Takes the next packet of the stream (the demuxer's, reused after this returns).
    mutating func take(_ packet: Packet, into muxer: Muxer) throws(FFmpegError) {
        guard !isDone else { return }
        let pts = packet.pointer.pointee.pts
        guard pts != noTimestamp else { return }
        if isStarted { return try keep(packet.referenced(), into: muxer) }
        if isVideo {
            let key = packet.pointer.pointee.flags & AV_PKT_FLAG_KEY != 0
            if key, !pending.isEmpty, pts > start {
                // The pictures since the last keyframe hold the start: the cut begins there.
                try begin(into: muxer)
                return try keep(packet.referenced(), into: muxer)
            }
            if key { pending = [] }
            pending.append(try packet.referenced())
        } else {
            let duration = max(packet.pointer.pointee.duration, 0)
            guard pts + duration > start else {
                pending = [try packet.referenced()]  // the preroll of the frame that holds the start
                return
            }
            pending.append(try packet.referenced())
            try begin(into: muxer)
        }
    }

    /// At the end of the input: a cut whose start was in the last pictures begins there.
    mutating func finish(into muxer: Muxer) throws(FFmpegError) {
        if !isStarted, !pending.isEmpty { try begin(into: muxer) }
        held = []
        isDone = true
    }

    private mutating func begin(into muxer: Muxer) throws(FFmpegError) {
        isStarted = true
        let packets = pending
        pending = []
        for packet in packets { try keep(packet, into: muxer) }
    }

    /// Writes a packet of the kept part, moved so the cut's start is at 0, its duration ending
    /// at the cut's end; one shown at or after the end waits in ``held``.
    private mutating func keep(_ packet: Packet, into muxer: Muxer) throws(FFmpegError) {
        guard !isDone else { return }
        let raw = packet.pointer
        if raw.pointee.pts >= end {
            // Shown after the end: only a picture that something before the end still needs is kept.
            if isVideo, raw.pointee.flags & AV_PKT_FLAG_KEY == 0 { held.append(packet) } else { isDone = true; held = [] }
            return
        }
        for waiting in held { try write(waiting, into: muxer) }
        held = []
        raw.pointee.duration = min(max(raw.pointee.duration, 0), end - raw.pointee.pts)
        try write(packet, into: muxer)
    }

    private func write(_ packet: Packet, into muxer: Muxer) throws(FFmpegError) {
        let raw = packet.pointer
        raw.pointee.pts -= start
        if raw.pointee.dts != noTimestamp { raw.pointee.dts -= start }
        // The source's edit list marked its own hidden frames; this file's says what plays.
        raw.pointee.flags &= ~AV_PKT_FLAG_DISCARD
        raw.pointee.pos = -1
        packet.streamIndex = target
        try muxer.write(packet, timeBase: timeBase)
    }
}

extension Packet {
    /// A new packet referring to this one's data and carrying its properties, which outlives the
    /// demuxer's reuse of this one. The corresponding C function is `av_packet_ref`.
    fileprivate func referenced() throws(FFmpegError) -> Packet {
        let copy = try Packet()
        try check(av_packet_ref(copy.pointer, pointer), "av_packet_ref")
        return copy
    }
}
