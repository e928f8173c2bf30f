import Foundation

/// FFmpeg's command-line tools as independent witnesses of what the library wrote.
public enum Witness {
    /// ffprobe's view of a file: format name, duration and the first audio codec.
    public struct Probe: Sendable {
        public var formatName: String
        public var duration: Double
        public var audioCodec: String?
    }

    public static func ffprobe(_ url: URL) async throws -> Probe {
        let result = try await run("ffprobe", ["-v", "error", "-show_entries",
                                         "format=format_name,duration:stream=codec_type,codec_name",
                                         "-of", "json", url.path])
        guard result.status == 0,
              let json = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
              let format = json["format"] as? [String: Any] else {
            throw TestFailure("ffprobe could not read \(url.path): \(result.error)")
        }
        let streams = json["streams"] as? [[String: Any]] ?? []
        return Probe(formatName: format["format_name"] as? String ?? "",
                     duration: Double(format["duration"] as? String ?? "") ?? -1,
                     audioCodec: streams.first { $0["codec_type"] as? String == "audio" }?["codec_name"] as? String)
    }

    /// The sample rate ``decodeAudio(_:)`` delivers: enough for tones up to 4 kHz, and cheap to analyse.
    public static let analysisRate = 8_000.0

    /// Decodes the audio with the ffmpeg tool into mono float samples at ``analysisRate`` (see
    /// ``decodeFloat(_:_:)``).
    public static func decodeAudio(_ url: URL) async throws -> [Float] {
        try await decodeFloat(["-i", url.path], ["-ac", "1", "-ar", String(Int(analysisRate))])
    }

    /// The frequency with the most energy between 50 Hz and half the sample rate, to 0.5 Hz, over the loudest
    /// second of the samples.
    public static func dominantFrequency(_ samples: [Float], sampleRate: Double = analysisRate) -> Double {
        let window = min(samples.count, Int(sampleRate))
        guard window > 0 else { return 0 }
        var best = 0, bestEnergy: Float = -1
        var start = 0
        while start + window <= samples.count {
            let energy = samples[start..<start + window].reduce(0) { $0 + $1 * $1 }
            if energy > bestEnergy { (best, bestEnergy) = (start, energy) }
            start += window / 4
        }
        let slice = samples[best..<best + window]
        func power(_ frequency: Double) -> Double { ToneTrack.power(slice, frequency, sampleRate) }
        func loudest(_ frequencies: StrideThrough<Double>) -> Double {
            var (best, bestPower) = (0.0, -1.0)
            for frequency in frequencies {
                let p = power(frequency)
                if p > bestPower { (best, bestPower) = (frequency, p) }
            }
            return best
        }
        let coarse = loudest(stride(from: 50, through: sampleRate / 2 - 10, by: 10))
        return loudest(stride(from: coarse - 10, through: coarse + 10, by: 0.5))
    }

    /// What ffmpeg's `ebur128=peak=true` filter measures: integrated loudness (LUFS) and true
    /// peak (dBTP), to its one decimal; minus infinity where it prints `-inf`. `input` is the
    /// part of ffmpeg's command line naming the input (`["-i", path]`, or a raw format first);
    /// `dualMono` counts a mono input twice, as `LoudnessMeter.forPlayback` does; `filters` run
    /// first (`"aformat=channel_layouts=stereo,"` mixes down as libswresample does by default).
    public static func ebur128(_ input: [String], dualMono: Bool = false, filters: String = "") async throws -> (integrated: Double, truePeak: Double) {
        let result = try await run("ffmpeg", ["-hide_banner", "-nostats"] + input
                             + ["-af", "\(filters)ebur128=peak=true:dualmono=\(dualMono)", "-f", "null", "-"])
        guard result.status == 0, let summary = result.error.range(of: "Summary:") else {
            throw TestFailure("ffmpeg's ebur128 could not measure \(input): \(result.error)")
        }
        func value(after label: String) throws -> Double {
            let text = result.error[summary.upperBound...]
            guard let start = text.range(of: label) else { throw TestFailure("no \(label) in ebur128's summary: \(text)") }
            let field = text[start.upperBound...].drop { $0 == " " }.prefix { !$0.isWhitespace }
            if field == "-inf" { return -.infinity }
            guard let number = Double(field) else { throw TestFailure("ebur128 printed \(label) \(field)") }
            return number
        }
        return (try value(after: "I:"), try value(after: "Peak:"))
    }

    /// Decodes with the ffmpeg tool into interleaved float samples, keeping the rate and channels
    /// unless `arguments` say otherwise (`["-ar", "44100"]`). Works in the test's temporary folder
    /// (its suite needs the `.temporaryFiles` trait).
    public static func decodeFloat(_ input: [String], _ arguments: [String] = []) async throws -> [Float] {
        let output = temporaryFolder().appendingPathComponent("pcm-\(UUID().uuidString).f32")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await run("ffmpeg", ["-v", "error"] + input + arguments + ["-f", "f32le", output.path])
        guard result.status == 0 else { throw TestFailure("ffmpeg could not decode \(input): \(result.error)") }
        let data = try Data(contentsOf: output)
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// How many channels the first audio stream of a file has, as ffprobe reads it.
    public static func ffprobeChannels(_ url: URL) async throws -> Int {
        let result = try await run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=channels",
                                         "-of", "csv=p=0", url.path])
        guard result.status == 0, let channels = Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("ffprobe could not count the channels of \(url.path): \(result.error)")
        }
        return channels
    }
}
