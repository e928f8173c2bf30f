import Foundation

/// Reads media facts through libavformat and turns FFmpeg failures into errors that name the file.
package enum MediaProbe {
    package static func info(of media: MediaLocation) throws(CraveyError) -> MediaInfo {
        try media.open().info
    }

    /// The container's duration, or the end of the last packet when the container declares none
    /// or one that disagrees with the packets by more than a second.
    package static func duration(of media: MediaLocation) throws(CraveyError) -> Double {
        try duration(of: try media.open(), at: media.url)
    }

    static func duration(of input: Demuxer, at url: URL) throws(CraveyError) -> Double {
        let info = input.info
        if let declared = info.containerDuration, declared > 0, declared < 7 * 24 * 3600,
           let longest = info.streams.compactMap(\.duration).max(), abs(longest - declared) < 1 {
            return declared
        }
        do {
            return try packetDuration(input)
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot read \(url.path): \(error). The file is damaged or not media.")
        }
    }

    /// The duration of a file whose main stream decodes at least one frame. Throws a
    /// ``CraveyError`` when the file is not playable, and ``FFmpegError/outOfMemory`` as it is,
    /// since running out of memory says nothing about the file.
    package static func playableDuration(of media: MediaLocation) throws -> Double {
        let url = media.url
        let input = try media.open()
        // Decoding first, from where the file opens: a rewind that failed after reading every
        // packet for the duration would make a playable file look undecodable (and doctor deletes
        // those when asked); here it can at most shorten a duration read from the packets.
        if let reason = try undecodableReason(input) {
            throw CraveyError(.undecodableMedia, "\(url.path) \(reason).")
        }
        // A file that cannot seek back has its duration read from the packets after the first frame.
        _ = try unlessOutOfMemory { () throws(FFmpegError) in try input.seek(to: 0) }
        return try duration(of: input, at: url)
    }

    /// Why the main stream (the video, or else the audio; cover art is not video) does not
    /// decode a first frame from where `input` stands; nil when it does. Throws only when memory
    /// ran out, which says nothing about the file.
    static func undecodableReason(_ input: Demuxer) throws(FFmpegError) -> String? {
        let info = input.info
        guard let stream = info.videoStream ?? info.audioStream else { return "holds no audio or video" }
        do {
            let decoder = try Decoder(stream: Int32(stream.index), of: input)
            let decoded = try input.walk(decoding: [decoder], frames: { _, _ in .stop })
            return decoded == .stop ? nil : "cannot be decoded (no frame of its \(stream.kind.rawValue) decodes)"
        } catch where error == .outOfMemory {
            throw error
        } catch {
            return "cannot be decoded (\(error.message))"
        }
    }

    /// Whether `url` opens as media with an audio or video stream and holds not one packet: a
    /// recording killed before its first sound arrived. Such a file holds nothing of anyone's.
    ///
    /// A file that cannot be opened or read is not known to be empty: false, so that nothing
    /// is removed on a doubt.
    static func holdsNoPacket(_ media: MediaLocation) -> Bool {
        guard let input = try? media.open(), input.info.videoStream ?? input.info.audioStream != nil else { return false }
        return (try? input.walk(packets: { _ in .stop })) == .next
    }

    static func packetDuration(_ input: Demuxer) throws(FFmpegError) -> Double {
        var starts: [Int32: Double] = [:]
        var ends: [Int32: Double] = [:]
        try input.walk(packets: { packet in
            guard let span = input.timeSpan(of: packet) else { return .next }
            let index = packet.streamIndex
            starts[index] = min(starts[index] ?? span.start, span.start)
            ends[index] = max(ends[index] ?? span.end, span.end)
            return .next
        })
        // A stream starts at 0 at the earliest (what comes before is priming, as Opus's pre-skip),
        // and one that ends there, or before, lasts nothing: never a negative length.
        return ends.map { index, end in max(end - max(starts[index] ?? 0, 0), 0) }.max() ?? 0
    }

}
