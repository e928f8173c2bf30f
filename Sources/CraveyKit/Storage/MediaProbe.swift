import Foundation
internal import CFFmpeg

/// Reads media facts through libavformat and turns FFmpeg failures into errors that name the file.
enum MediaProbe {
    static func info(of url: URL) throws(CraveyError) -> MediaInfo {
        try open(url).info
    }

    /// The container's duration, or the end of the last packet when the container declares none
    /// or one that disagrees with the packets by more than a second.
    static func duration(of url: URL) throws(CraveyError) -> Double {
        try duration(of: try open(url), at: url)
    }

    static func duration(of input: InputFile, at url: URL) throws(CraveyError) -> Double {
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

    /// The duration of a file whose main stream decodes at least one frame; throws otherwise.
    static func playableDuration(of url: URL) throws(CraveyError) -> Double {
        let input = try open(url)
        // Decoding first, from where the file opens: a rewind that failed after reading every
        // packet for the duration would make a playable file look undecodable (and doctor deletes
        // those when asked); here it can at most shorten a duration read from the packets.
        if let reason = undecodableReason(input) {
            throw CraveyError(.undecodableMedia, "\(url.path) \(reason).")
        }
        try? input.seek(to: 0)
        return try duration(of: input, at: url)
    }

    /// Why the main stream (the video, or else the audio; cover art is not video) does not
    /// decode a first frame from where `input` stands; nil when it does.
    static func undecodableReason(_ input: InputFile) -> String? {
        let info = input.info
        guard let stream = info.videoStream ?? info.audioStream else { return "holds no audio or video" }
        let index = Int32(stream.index)
        do throws(FFmpegError) {
            let decoder = try Decoder(stream: index, of: input)
            let packet = try Packet()
            let frame = try Frame()
            while try input.read(into: packet) {
                defer { packet.unref() }
                guard packet.streamIndex == index else { continue }
                _ = try decoder.send(packet)
                if try decoder.receive(into: frame) == .ready { return nil }
            }
            _ = try decoder.send(nil)
            return try decoder.receive(into: frame) == .ready ? nil : "cannot be decoded (no frame of its \(stream.kind.rawValue) decodes)"
        } catch {
            return "cannot be decoded (\(error.message))"
        }
    }

    static func packetDuration(_ input: InputFile) throws(FFmpegError) -> Double {
        var starts: [Int32: Double] = [:]
        var ends: [Int32: Double] = [:]
        let packet = try Packet()
        while try input.read(into: packet) {
            defer { packet.unref() }
            let index = packet.streamIndex
            let pts = packet.pointer.pointee.pts
            guard pts != noTimestamp else { continue }
            let scale = av_q2d(input.timeBase(ofStream: index))
            let start = Double(pts) * scale
            let end = Double(pts + max(packet.pointer.pointee.duration, 0)) * scale
            starts[index] = min(starts[index] ?? start, start)
            ends[index] = max(ends[index] ?? end, end)
        }
        return ends.map { index, end in end - max(starts[index] ?? 0, 0) }.max() ?? 0
    }

    static func open(_ url: URL) throws(CraveyError) -> InputFile {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CraveyError(.notFound, "No file at \(url.path).")
        }
        do {
            return try InputFile(url: url)
        } catch {
            if error.code == cravey_averror(EACCES) {
                throw CraveyError(.other, "Cannot read \(url.path): permission denied.")
            }
            throw CraveyError(.undecodableMedia, "Cannot read \(url.path) as media (\(error.message)). The file is damaged or in a format FFmpeg does not know.")
        }
    }
}
