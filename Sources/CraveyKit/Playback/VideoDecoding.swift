import Foundation

/// The shape of a video's pictures, and how they are seen.
struct VideoFormat: Sendable, Equatable {
    /// The pictures' size in pixels, as decoded.
    var width: Int
    var height: Int
    /// How far each picture is turned clockwise to be seen upright (0, 90, 180, 270): a phone's
    /// display matrix.
    var rotation: Int
    /// One pixel's width over its height.
    var pixelAspect: Double

    /// The size the pictures are seen at: turned, their pixels made square.
    var displaySize: (width: Int, height: Int) {
        let width = max(Int((Double(self.width) * pixelAspect).rounded()), 1)
        return rotation % 180 == 0 ? (width, max(height, 1)) : (max(height, 1), width)
    }
}

/// A file's video stream, decoded into pictures a window takes as they are: planar YUV 4:2:0,
/// other pixel formats converted to it (libswscale).
///
/// A seek lands on the keyframe at or before the position and decodes from there; the first
/// picture handed out is the one showing at the position (the last at or before it).
final class VideoDecoding {
    let format: VideoFormat
    private let url: URL
    private let input: Demuxer
    private let decoder: Decoder
    /// How long the last picture shows: one frame at the stream's rate.
    private let frameDuration: Double
    private var scaler: Scaler?
    private var decodedAny = false

    /// Opens the file's video stream, reading no other; nil when it has none (cover art is no
    /// video). Throws ``CraveyError``: `.notFound`, or `.undecodableMedia` when the file or its
    /// video cannot be decoded.
    static func open(_ media: MediaLocation) throws -> VideoDecoding? {
        let input = try media.open()
        guard let stream = input.info.videoStream else { return nil }
        return try VideoDecoding(input, stream: stream, url: media.url)
    }

    private init(_ input: Demuxer, stream: StreamInfo, url: URL) throws {
        let index = Int32(stream.index)
        input.readOnly(stream: stream.index)
        do {
            decoder = try Decoder(stream: index, of: input, slicedOnThreads: true)
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot decode the video of \(url.path) (\(error.message)). The file is damaged or in a format FFmpeg does not know.")
        }
        self.input = input
        self.url = url
        frameDuration = 1 / (input.framesPerSecond(ofStream: index) ?? 25)
        format = VideoFormat(width: stream.width ?? 0, height: stream.height ?? 0, rotation: stream.rotation,
                             pixelAspect: input.pixelAspect(ofStream: index))
    }

    /// Hands `body` the pictures from `position` on, each with when it shows and for how long,
    /// until `body` returns false (then false) or the stream ends (then true).
    ///
    /// Each picture is a frame of its own, which `body` may keep. The first is the last picture at
    /// or before the position (known once the next one is decoded, unless it is at the position);
    /// each after it goes out as soon as it is decoded, for one frame at the stream's rate.
    func pictures(from position: Double, _ body: (_ picture: Frame, _ time: Double, _ duration: Double) -> Bool) throws -> Bool {
        // As the audio decoder: a failed seek (an unseekable file) plays on from where the input stands.
        _ = try unlessOutOfMemory { () throws(FFmpegError) in try input.seek(to: position) }
        decoder.flush()
        // The latest picture before the position, until one at or after it shows whether it is needed.
        var held: (picture: Frame, time: Double)?
        var reached = false
        var last: Double?
        do {
            let step = try input.walk(decoding: [decoder], frames: { (_, frame) throws(FFmpegError) -> WalkStep in
                decodedAny = true
                let time = decoder.seconds(of: frame) ?? last.map { $0 + frameDuration } ?? position
                last = time
                if !reached {
                    guard time >= position else {
                        held = (try frame.moved(), time)
                        return .next
                    }
                    reached = true
                    if let shown = held, time > position, !body(try viewable(shown.picture), shown.time, time - shown.time) {
                        return .stop
                    }
                    held = nil
                }
                return body(try viewable(try frame.moved()), time, frameDuration) ? .next : .stop
            })
            if step == .stop { return false }
            if !decodedAny {
                throw CraveyError(.undecodableMedia, "Cannot decode \(url.path): no frame of its video decodes. The file is damaged.")
            }
            // A position past the last picture: that picture.
            guard let shown = held else { return true }
            return body(try viewable(shown.picture), shown.time, frameDuration)
        } catch let error as FFmpegError {
            throw CraveyError(.undecodableMedia, "Cannot decode the video of \(url.path) (\(error.message)). The file is damaged.")
        }
    }

    /// `picture` as planar YUV 4:2:0, converted only when it is in another pixel format.
    private func viewable(_ picture: Frame) throws(FFmpegError) -> Frame {
        guard !picture.isPlanarYUV420 else { return picture }
        if scaler == nil { scaler = try Scaler(from: picture, to: picture.width, picture.height, format: .yuv420p) }
        return try scaler!.scale(picture)
    }
}

@available(*, unavailable)
extension VideoDecoding: Sendable {}
