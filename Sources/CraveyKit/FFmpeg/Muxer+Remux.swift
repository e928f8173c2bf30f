import Foundation
internal import CFFmpeg

extension Muxer {
    /// Runs `body` to fill the file, then closes it; when anything throws, abandons it instead.
    func closing(after body: () throws -> Void) throws {
        do {
            try body()
            try close()
        } catch {
            abandon()
            throw error
        }
    }

    /// Writes `packet`, read from `input`, as a packet of stream `stream`, its timestamps rescaled
    /// from its input stream's time base to the output's; its byte position in the input, which
    /// means nothing in the output, is forgotten. Through `filter`, what comes out of it is
    /// written instead (``flush(_:ofStream:of:to:)`` writes what it holds at the end).
    func write(copied packet: Packet, of input: Demuxer, to stream: Int32,
               through filter: BitstreamFilter? = nil) throws(FFmpegError) {
        let timeBase = input.timeBase(ofStream: packet.streamIndex)
        packet.streamIndex = stream
        packet.pointer.pointee.pos = -1
        guard let filter else { return try write(packet, timeBase: timeBase) }
        try filter.filter(packet) { (out) throws(FFmpegError) in
            out.streamIndex = stream
            try write(out, timeBase: timeBase)
        }
    }

    /// Writes what `filter` still holds once the packets of `input`'s stream `index` have all
    /// gone through it, as packets of stream `stream`.
    func flush(_ filter: BitstreamFilter, ofStream index: Int32, of input: Demuxer, to stream: Int32) throws(FFmpegError) {
        let timeBase = input.timeBase(ofStream: index)
        try filter.filter(nil) { (out) throws(FFmpegError) in
            out.streamIndex = stream
            try write(out, timeBase: timeBase)
        }
    }

    /// Opens the file at `input` by its path (a file outside the library) and copies its audio and
    /// video streams into `output`, as the variant taking a ``Demuxer`` does.
    static func remux(_ input: URL, into output: MediaFile, format: String, audioPriming: Int64 = 0) throws {
        try remux(Demuxer(url: input), into: output, format: format, audioPriming: audioPriming)
    }

    /// Copies every audio and video stream of `source`, from where it stands, into `output`, a new
    /// file, packet for packet, without re-encoding; used to turn a fragmented recording into a
    /// normal MP4 with its index up front when a clip is finished, its source a library file read
    /// through its descriptor (``Demuxer/init(reading:name:)``).
    ///
    /// `audioPriming` moves audio timestamps back by the encoder delay (in samples) that a
    /// fragmented file cannot record, so the output's edit list hides the priming samples again.
    static func remux(_ source: Demuxer, into output: MediaFile, format: String, audioPriming: Int64 = 0) throws {
        let muxer = try Muxer(writingTo: output, format: format)
        try muxer.closing {
            var mapping: [Int32: (index: Int32, shift: Int64)] = [:]
            for stream in source.info.streams where (stream.kind == .audio || stream.kind == .video) && !stream.isAttachedPicture {
                let index = Int32(stream.index)
                let timeBase = source.timeBase(ofStream: index)
                let shift = stream.kind == .audio && audioPriming > 0
                    ? av_rescale_q(audioPriming, AVRational(num: 1, den: Int32(stream.sampleRate ?? 48_000)), timeBase) : 0
                mapping[index] = (try muxer.addStream(copying: index, of: source), shift)
            }
            guard !mapping.isEmpty else { throw FFmpegError.streamNotFound }
            try muxer.writeHeader(options: ["movflags": "+faststart"])
            try source.walk(packets: { (packet) throws(FFmpegError) in
                guard let target = mapping[packet.streamIndex] else { return .next }
                if target.shift != 0 {
                    if packet.pointer.pointee.pts != noTimestamp { packet.pointer.pointee.pts -= target.shift }
                    if packet.pointer.pointee.dts != noTimestamp { packet.pointer.pointee.dts -= target.shift }
                }
                try muxer.write(copied: packet, of: source, to: target.index)
                return .next
            })
        }
    }
}
