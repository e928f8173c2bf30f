import Foundation

/// A region of a screen and a sink's sound recorded together by one ffmpeg process, both stamped
/// on the wall clock: x11grab stamps a picture when it reads it from the X server, PulseAudio's
/// input stamps the sound when the sink plays it (a monitor's latency is the sink's, which it
/// takes off). The witness of when a picture showed and when its sound was heard.
///
/// The region is read 250 times a second (every 4 ms); the sound is measured in 1 ms windows.
public final class ScreenSoundCapture: Sendable {
    private let process: TestProcess
    private let pictures: URL
    private let sound: URL

    /// Starts recording `seconds` of the region and of `sink`'s monitor.
    public init(display: VirtualDisplay, region: (x: Int, y: Int, width: Int, height: Int), sink: String, seconds: Double) throws {
        let folder = temporaryFolder()
        pictures = folder.appendingPathComponent("pictures-\(UUID().uuidString).txt")
        sound = folder.appendingPathComponent("sound-\(UUID().uuidString).txt")
        process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // -copyts: the inputs' own times, not each moved to start at 0.
        process.arguments = ["ffmpeg", "-v", "error", "-nostdin", "-copyts",
                             "-t", String(seconds), "-f", "x11grab", "-framerate", "250",
                             "-video_size", "\(region.width)x\(region.height)", "-i", "\(display.name)+\(region.x),\(region.y)",
                             "-t", String(seconds), "-f", "pulse", "-fragment_size", "960", "-sample_rate", "48000", "-channels", "1",
                             "-i", "\(sink).monitor",
                             "-filter:v", "signalstats,metadata=mode=print:key=lavfi.signalstats.YAVG:file=\(pictures.path)",
                             "-filter:a", "asetnsamples=n=48,astats=metadata=1:reset=1,ametadata=mode=print:key=lavfi.astats.Overall.Peak_level:file=\(sound.path)",
                             "-f", "null", "-"]
        process.environment = ProcessInfo.processInfo.environment.merging(["PULSE_SERVER": TestSoundServer.address]) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// Waits for the recording to end; returns when the region turned bright (its mean luma
    /// crossing half-scale upwards) and when the sound turned loud (its peak crossing -12 dBFS
    /// upwards), in seconds on the wall clock.
    public func finish() throws -> (flashes: [Double], clicks: [Double]) {
        process.waitForExit()
        guard process.terminationStatus == 0 else { throw TestFailure("ffmpeg's capture failed (\(process.terminationStatus))") }
        // The pictures' times are microseconds; the sound's are samples at 48 kHz.
        return (try Self.rises(in: pictures, timeBase: 1e-6, above: 128), try Self.rises(in: sound, timeBase: 1 / 48_000, above: -12))
    }

    /// The times at which the values `ffmpeg`'s `metadata=print` wrote (`frame:N pts:P ...`,
    /// then `key=value`) rise above `threshold`.
    private static func rises(in file: URL, timeBase: Double, above threshold: Double) throws -> [Double] {
        var rises: [Double] = []
        var time: Double?
        var wasAbove = true
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("frame:") {
                time = line.split(separator: " ").first { $0.hasPrefix("pts:") }.flatMap { Double($0.dropFirst(4)) }.map { $0 * timeBase }
            } else if let time {
                // "-inf" (silence) reads as minus infinity.
                let value = line.split(separator: "=").last.flatMap { Double($0) } ?? -.infinity
                if value > threshold, !wasAbove { rises.append(time) }
                wasAbove = value > threshold
            }
        }
        return rises
    }
}
