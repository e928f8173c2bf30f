import Foundation

/// Makes a video's JPEG thumbnail: 320 px wide, aspect kept, rotation metadata honoured, taken at
/// 10% of the duration (never past 95%), skipping near-black frames, the first frame as a fallback.
enum Thumbnailer {
    static let width: Int32 = 320
    /// Mean full-range luma below which a frame counts as black (a fade-in, a covered lens).
    static let blackLevel = 20.0
    /// How many frames after the target to try before falling back to the first frame.
    static let framesToTry = 90

    static func jpeg(forVideoAt url: URL) throws(CraveyError) -> Data {
        let input = try MediaProbe.open(url)
        let info = input.info
        guard let stream = info.videoStream else {
            throw CraveyError(.undecodableMedia, "\(url.path) has no video to make a thumbnail from.")
        }
        do throws(FFmpegError) {
            let decoder = try Decoder(stream: Int32(stream.index), of: input)
            let duration = info.containerDuration ?? stream.duration ?? 0
            let target = min(duration * 0.10, duration * 0.95)
            let size = thumbnailSize(width: Int32(stream.width ?? 0), height: Int32(stream.height ?? 0),
                                     rotation: stream.rotation)
            var picture: Frame?
            // A file that cannot seek there is read from the start.
            if target > 0, try unlessOutOfMemory({ () throws(FFmpegError) in try input.seek(to: target) }) != nil {
                decoder.flush()
                picture = try firstBright(input, decoder, after: target, size: size, rotation: stream.rotation)
            }
            if picture == nil {
                try input.seek(to: 0)
                decoder.flush()
                picture = try firstBright(input, decoder, after: 0, size: size, rotation: stream.rotation,
                                          acceptDark: true)
            }
            guard let picture else { throw FFmpegError.invalidData }
            return try Encoder.jpeg(picture)
        } catch where error == .outOfMemory {
            throw CraveyError(.other, "Ran out of memory making a thumbnail of \(url.path). Close other programs and try again.")
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot make a thumbnail of \(url.path): \(error.message).")
        }
    }

    /// The thumbnail's size: 320 wide, the displayed aspect kept, even height.
    static func thumbnailSize(width: Int32, height: Int32, rotation: Int) -> (width: Int32, height: Int32) {
        let (displayWidth, displayHeight) = rotation % 180 == 0 ? (width, height) : (height, width)
        guard displayWidth > 0, displayHeight > 0 else { return (Self.width, Self.width * 3 / 4) }
        let height = Int32((Double(Self.width) * Double(displayHeight) / Double(displayWidth) / 2).rounded()) * 2
        return (Self.width, max(height, 2))
    }

    /// Decodes frames from `after` seconds on and returns the first that is not near-black,
    /// scaled and turned upright; with `acceptDark`, the first frame whatever it looks like.
    private static func firstBright(_ input: InputFile, _ decoder: Decoder, after seconds: Double,
                                    size: (width: Int32, height: Int32), rotation: Int,
                                    acceptDark: Bool = false) throws(FFmpegError) -> Frame? {
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
            if acceptDark || scaled.meanLuma >= blackLevel {
                found = try FilterGraph.turn(scaled, clockwise: rotation)
                return .stop
            }
            return tried < framesToTry ? .next : .stop
        })
        return found
    }
}
