import Foundation

/// Makes a video's JPEG thumbnail: 320 px wide, aspect kept, rotation metadata honoured, taken at
/// 10% of the duration (never past 95%), skipping near-black frames, the first frame as a fallback;
/// or at a time asked for, as it is there.
package enum Thumbnailer {
    static let width: Int32 = 320
    /// Mean full-range luma below which a frame counts as black (a fade-in, a covered lens).
    static let blackLevel = 20.0
    /// How many frames after the target to try before falling back to the first frame.
    static let framesToTry = 90

    /// The thumbnail of the video at `url`: at 10% of its duration, the first frame there that
    /// is not near-black; or, with `time`, the frame showing at `time` seconds, dark or not (at
    /// the very end, the last frame). A time past the end is refused (`.invalidInput`).
    package static func jpeg(forVideoAt media: MediaLocation, at time: Double? = nil) throws(CraveyError) -> Data {
        let url = media.url
        let input = try media.open()
        let info = input.info
        guard let stream = info.videoStream else {
            throw CraveyError(.undecodableMedia, "\(url.path) has no video to make a thumbnail from.")
        }
        let duration = info.containerDuration ?? stream.duration ?? 0
        // A duration the file does not declare (0) is not checked against: past the last
        // frame, the last frame shows.
        if let time, !(time >= 0 && (duration <= 0 || time <= duration + 0.001)) {
            throw CraveyError(.invalidInput, "There is no picture at \(Self.seconds(time)) s: the video is \(Self.seconds(duration)) s long. Choose a time from 0 to \(Self.seconds(duration)).")
        }
        do throws(FFmpegError) {
            let decoder = try Decoder(stream: Int32(stream.index), of: input)
            let target = time.map { duration > 0 ? min($0, duration) : $0 } ?? min(duration * 0.10, duration * 0.95)
            let size = thumbnailSize(width: Int32(stream.width ?? 0), height: Int32(stream.height ?? 0),
                                     rotation: stream.rotation)
            func decoded(after seconds: Double, _ pick: Pick) throws(FFmpegError) -> Frame? {
                if seconds <= 0 {
                    try input.seek(to: 0)
                } else if try unlessOutOfMemory({ () throws(FFmpegError) in try input.seek(to: seconds) }) == nil {
                    // A file that cannot seek there: the usual thumbnail falls back to its first
                    // frame; a time asked for is read up to from the start.
                    guard pick != .bright else { return nil }
                    try input.seek(to: 0)
                }
                decoder.flush()
                return try Self.picture(input, decoder, after: seconds, size: size, rotation: stream.rotation, pick)
            }
            var picture: Frame?
            if time != nil {
                // Past the last frame's time (the very end): the last frame.
                picture = try decoded(after: target, .first)
                if picture == nil { picture = try decoded(after: max(target - 2, 0), .last) }
            } else {
                if target > 0 { picture = try decoded(after: target, .bright) }
                if picture == nil { picture = try decoded(after: 0, .first) }
            }
            guard let picture else { throw FFmpegError.invalidData }
            return try Encoder.jpeg(picture)
        } catch where error == .outOfMemory {
            throw CraveyError(.other, "Ran out of memory making a thumbnail of \(url.path). Close other programs and try again.")
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot make a thumbnail of \(url.path): \(error.message).")
        }
    }

    /// "2", "2.5", "12.34": seconds as a person reads them.
    private static func seconds(_ value: Double) -> String {
        var text = String(format: "%.2f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// The thumbnail's size: 320 wide, the displayed aspect kept, even height.
    static func thumbnailSize(width: Int32, height: Int32, rotation: Int) -> (width: Int32, height: Int32) {
        let (displayWidth, displayHeight) = rotation % 180 == 0 ? (width, height) : (height, width)
        guard displayWidth > 0, displayHeight > 0 else { return (Self.width, Self.width * 3 / 4) }
        let halfHeight: Double = Double(Self.width) * Double(displayHeight) / Double(displayWidth) / 2
        let height = Int32(halfHeight.rounded()) * 2
        return (Self.width, max(height, 2))
    }

    /// Which frame from a time on makes the thumbnail.
    private enum Pick {
        /// The first that is not near-black, within ``framesToTry`` frames.
        case bright
        /// The first, whatever it looks like.
        case first
        /// The last one there is.
        case last
    }

    /// Decodes frames from `after` seconds on and returns the one `pick` asks for, scaled and
    /// turned upright; nil when there is none.
    private static func picture(_ input: Demuxer, _ decoder: Decoder, after seconds: Double,
                                size: (width: Int32, height: Int32), rotation: Int, _ pick: Pick) throws(FFmpegError) -> Frame? {
        var scaler: Scaler?
        var tried = 0
        var found: Frame?
        try input.walk(decoding: [decoder], frames: { (decoder, frame) throws(FFmpegError) in
            if let time = decoder.seconds(of: frame), time < seconds - 0.001 { return .next }
            // Scale to the unrotated shape; rotation turns it into the displayed one.
            let scaledSize = rotation % 180 == 0 ? size : (size.height, size.width)
            if scaler == nil {
                scaler = try Scaler(from: frame, to: scaledSize.0, scaledSize.1, format: .jpeg)
            }
            let scaled = try scaler!.scale(frame)
            tried += 1
            switch pick {
            case .last:
                found = scaled
                return .next
            case .first:
                found = scaled
                return .stop
            case .bright:
                if scaled.meanLuma >= blackLevel {
                    found = scaled
                    return .stop
                }
                return tried < framesToTry ? .next : .stop
            }
        })
        guard let found else { return nil }
        return try FilterGraph.turn(found, clockwise: rotation)
    }
}
