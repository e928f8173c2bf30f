import CraveyKit
import Foundation

/// The recorder's live line: "● 0:03.4 ▂▃▅▇█▆▃▂▁▁▂▅▇ -12.0 dBFS", redrawn in place: the audio
/// captured so far, to the tenth of a second (as sox's `rec` shows it), the sound of the last
/// seconds scrolling from right to left (one bar a capture block, the block's peak from -60 to
/// 0 dBFS as U+2581 to U+2588), and the level of the latest block; for a video, then the frame
/// rate the camera achieved over the last second ("29.9 fps"). Paused: "❚❚" and "paused".
struct MeterLine {
    /// Red for the dot, unless NO_COLOR.
    let colour: Bool
    var paused = false
    var frameRate: Double?
    /// The latest blocks' peaks (dBFS), oldest first, as many as the widest line shows.
    private(set) var history: [Double] = []
    static let widest = 200

    init(colour: Bool) {
        self.colour = colour
    }

    mutating func add(_ level: AudioLevel) {
        history.append(level.peak)
        if history.count > Self.widest { history.removeFirst(history.count - Self.widest) }
    }

    /// The line for a terminal `width` columns wide: the waveform takes what the rest leaves,
    /// from 8 to 60 bars; none when the terminal is narrower than the rest.
    func line(_ level: AudioLevel, width: Int) -> String {
        let (mark, text) = parts(level, width: width)
        return "\r\u{1B}[2K\(!paused && colour ? "\u{1B}[31m\(mark)\u{1B}[0m" : mark) \(text)"
    }

    /// The line's mark ("●", or "❚❚" while paused), which a terminal may colour, and the rest of
    /// it for `width` columns, without escape codes: for a screen that draws them itself.
    func parts(_ level: AudioLevel, width: Int) -> (mark: String, text: String) {
        let tenths = Int(level.elapsed * 10)
        let clock = String(format: "%d:%02d.%d", tenths / 600, tenths / 10 % 60, tenths % 10)
        let db = level.rms <= AudioLevel.floor ? " -inf" : String(format: "%5.1f", level.rms)
        let rate = frameRate.map { String(format: " %4.1f fps", $0) } ?? ""
        let state = paused ? " paused" : ""
        let fixed = 2 + clock.count + 1 + 1 + db.count + 5 + rate.count + state.count
        let bars = min(60, width - 1 - fixed)
        let wave = bars >= 8 ? " " + Self.bars(history.suffix(bars), width: bars) : ""
        return (paused ? "❚❚" : "●", "\(clock)\(wave) \(db) dBFS\(rate)\(state)")
    }

    /// `peaks` as `width` bars, right-aligned (the newest at the right), blank where no block
    /// has come yet.
    static func bars(_ peaks: ArraySlice<Double>, width: Int) -> String {
        let drawn = peaks.map { peak in Character(Waveform.bar(Int(((peak + 60) / 60 * 8).rounded(.down)))) }
        return String(repeating: " ", count: max(width - drawn.count, 0)) + String(drawn)
    }
}
