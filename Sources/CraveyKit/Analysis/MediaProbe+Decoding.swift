import Foundation

extension MediaProbe {
    /// What reading a media file to its end found: how long it decodes, against how long it
    /// says it is. A file whole from its start to its end decodes every packet, and as long as
    /// it says: one random, zeroed or cut off after its first seconds decodes a first frame, and
    /// its packet table still says the whole length, but here it falls short.
    package struct Decoding: Sendable, Equatable {
        /// Where what decodes ends, in seconds: the sound's first frame plus its samples, or for
        /// a video the later of that and the end of its pictures' last packet.
        package var decoded: Double
        /// Seconds the file says it lasts (``MediaProbe/duration(of:)``).
        package var declared: Double
        /// Packets the decoders refused as damaged: of its sound, or of its pictures, whose
        /// structure is read (``Decoder/init(stream:of:slicedOnThreads:structureOnly:)``).
        package var damagedPackets: Int
        /// Why the reading stopped before the end of the file, if it did.
        package var stopped: String?
        /// How far `decoded` and `declared` may be apart in a whole file: 50 ms, or two frames
        /// where a frame is longer (AAC at 8 kHz: 128 ms a frame). One frame for the end: an
        /// encoder writes whole frames (1,024 samples of AAC, a picture), and the file's length
        /// ends inside the last; one for the start: the priming an edit list hides, rounded.
        package var tolerance: Double

        /// Every packet decoded, to the end, as long as the file says.
        package var isWhole: Bool { damagedPackets == 0 && stopped == nil && abs(decoded - declared) <= tolerance }

        /// What is wrong, as a phrase after "its media": "decodes 14.7 s of the 30.0 s it says
        /// (1160 damaged packets)"; nil when it is whole.
        package var problem: String? {
            guard !isWhole else { return nil }
            var reasons: [String] = []
            if damagedPackets > 0 { reasons.append("\(damagedPackets) damaged packet\(damagedPackets == 1 ? "" : "s")") }
            if let stopped { reasons.append("the reading stopped: \(stopped)") }
            let seconds = { (value: Double) in String(format: "%.2f s", value) }
            return "decodes \(seconds(decoded)) of the \(seconds(declared)) it says"
                + (reasons.isEmpty ? "" : " (" + reasons.joined(separator: "; ") + ")")
        }
    }

    /// What is wrong with `media` read to its end, as a phrase after "it" ("decodes 1.20 s of the
    /// 30.00 s it says (1160 damaged packets)", "does not open as media (...)"); nil when it is
    /// whole (``decoding(of:)``). Throws only ``FFmpegError/outOfMemory``, which says nothing
    /// about the file.
    package static func damage(of media: MediaLocation) throws -> String? {
        do {
            return try decoding(of: media).problem
        } catch let error as CraveyError {
            return "does not open as media (\(error.message))"
        }
    }

    /// Reads `media` from its start to its end: decodes all of its sound, and reads every
    /// packet of its pictures for its structure, without making the pictures. For 10 minutes of
    /// 1280x720 30 fps H.264 and AAC that is 0.4 s of CPU; making the pictures too, as `ffmpeg -f
    /// null -` does, 40 s (`scripts/bench check`). Blocking; run it off the cooperative pool.
    ///
    /// Throws ``CraveyError`` (`.notFound`, `.undecodableMedia`) for a file that does not open as
    /// media, and ``FFmpegError/outOfMemory`` as it is, which says nothing about the file.
    package static func decoding(of media: MediaLocation) throws -> Decoding {
        let declared = try duration(of: media)
        let input = try media.open()
        let info = input.info
        guard info.audioStream != nil || info.videoStream != nil else {
            return Decoding(decoded: 0, declared: declared, damagedPackets: 0, stopped: "it holds no audio or video", tolerance: 0.05)
        }
        let picture = info.videoStream.map { Int32($0.index) }
        var decoder: Decoder?, pictureReader: Decoder?
        var stopped: String?
        do {
            decoder = try info.audioStream.map { (sound) throws(FFmpegError) in try Decoder(stream: Int32(sound.index), of: input) }
            pictureReader = try picture.map { (index) throws(FFmpegError) in try Decoder(stream: index, of: input, structureOnly: true) }
        } catch where error == .outOfMemory {
            throw error
        } catch {
            stopped = "it does not open for decoding (\(error.message))"
        }
        // A picture's packet that carries no duration lasts a frame at the stream's rate.
        let pictureLength = picture.flatMap { input.framesPerSecond(ofStream: $0) }.map { 1 / $0 } ?? 0
        var samples = 0, longestFrame = 0
        var soundStart: Double?
        var pictures: (end: Double, longest: Double)?
        do {
            try input.walk(decoding: [decoder, pictureReader].compactMap { $0 }, packets: { packet in
                guard packet.streamIndex == picture, let span = input.timeSpan(of: packet) else { return .next }
                let length = span.end > span.start ? span.end - span.start : pictureLength
                pictures = (max(pictures?.end ?? 0, span.start + length), max(pictures?.longest ?? 0, length))
                return .next
            }, frames: { from, frame in
                guard from === decoder else { return .next }
                if soundStart == nil { soundStart = from.seconds(of: frame) }
                samples += frame.sampleCount
                longestFrame = max(longestFrame, frame.sampleCount)
                return .next
            })
        } catch where error == .outOfMemory {
            throw error
        } catch {
            stopped = error.message
        }
        // Where each stream ends: the sound where its first frame is shown plus every sample
        // decoded (a packet that does not decode shortens it, wherever it is), the pictures at
        // the end of their last packet; a file says it lasts as long as its longest stream.
        let rate = Double(decoder?.audioFormat.sampleRate ?? 0)
        let sound = rate > 0 ? max(soundStart ?? 0, 0) + Double(samples) / rate : 0
        let frame = max(rate > 0 ? Double(longestFrame) / rate : 0, pictures?.longest ?? 0)
        return Decoding(decoded: max(sound, pictures?.end ?? 0), declared: declared, damagedPackets: (decoder?.refusedPackets ?? 0) + (pictureReader?.refusedPackets ?? 0),
                        stopped: stopped, tolerance: max(0.05, 2 * frame))
    }
}
