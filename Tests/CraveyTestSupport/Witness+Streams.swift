import Foundation

extension Witness {
    /// One stream as ffprobe reads it.
    public struct Stream: Sendable {
        public var kind: String
        public var codec: String
        public var pixelFormat: String?
        public var width: Int?
        public var height: Int?
        /// Frames a second, from `avg_frame_rate`; nil for audio.
        public var frameRate: Double?
        public var startTime: Double
        public var duration: Double
        /// When the stream's last sample ends.
        public var end: Double { startTime + duration }
    }

    /// Every stream of a file, as ffprobe reads them (for a fragmented MP4, the duration read from
    /// its fragments).
    public static func streams(_ url: URL) async throws -> [Stream] {
        try await offPool { try readStreams(url) }
    }

    /// ``streams(_:)`` on the calling thread, which it blocks: for a thread of the test's own
    /// (``poll(within:every:_:)``).
    public static func readStreams(_ url: URL) throws -> [Stream] {
        let result = try runBlocking("ffprobe", ["-v", "error", "-show_entries",
                                         "stream=codec_type,codec_name,pix_fmt,width,height,avg_frame_rate,start_time,duration",
                                         "-of", "json", url.path])
        guard result.status == 0,
              let json = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
              let streams = json["streams"] as? [[String: Any]] else {
            throw TestFailure("ffprobe could not read the streams of \(url.path): \(result.error)")
        }
        return streams.map { stream in
            let rate = (stream["avg_frame_rate"] as? String)?.split(separator: "/").compactMap { Double($0) }
            return Stream(kind: stream["codec_type"] as? String ?? "", codec: stream["codec_name"] as? String ?? "",
                          pixelFormat: stream["pix_fmt"] as? String, width: stream["width"] as? Int,
                          height: stream["height"] as? Int,
                          frameRate: rate.flatMap { $0.count == 2 && $0[1] > 0 && $0[0] > 0 ? $0[0] / $0[1] : nil },
                          startTime: Double(stream["start_time"] as? String ?? "") ?? 0,
                          duration: Double(stream["duration"] as? String ?? "") ?? -1)
        }
    }
}
