import Foundation

/// One way a camera can capture: a pixel format at a size, and the frame rates it offers there.
package struct CameraMode: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The pixel format's four-character code, for example "MJPG" or "YUYV".
    package var pixelFormat: String
    package var width: Int
    package var height: Int
    /// Frames a second, highest first. Where the driver offers a range rather than a list
    /// (stepwise or continuous intervals), its ends and the usual rates between them.
    package var frameRates: [Double]
    /// True for a compressed format (MJPEG, H.264), which the camera can send at rates and
    /// sizes its USB link cannot carry raw.
    package var isCompressed: Bool

    package init(pixelFormat: String, width: Int, height: Int, frameRates: [Double], isCompressed: Bool) {
        (self.pixelFormat, self.width, self.height, self.frameRates, self.isCompressed) =
            (pixelFormat, width, height, frameRates, isCompressed)
    }

    /// "MJPG 1280x720 30,15 fps" ("MJPG 1280x720" when the driver names no rate).
    package var description: String {
        let size = "\(pixelFormat) \(width)x\(height)"
        guard !frameRates.isEmpty else { return size }
        return size + " " + frameRates.map(Self.format).joined(separator: ",") + " fps"
    }

    /// "30", "29.97", "7.5".
    static func format(_ rate: Double) -> String {
        if rate == rate.rounded() { return String(Int(rate)) }
        var text = String((rate * 100).rounded() / 100)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

extension CameraMode {
    /// A mode and the frame rate to ask of it (``best(in:width:height:fps:)``).
    package struct Choice: Sendable, Equatable {
        package var mode: CameraMode
        /// One of the mode's rates; the requested rate when the driver names none.
        package var frameRate: Double
    }

    /// The mode to capture `width`x`height` at `fps` with, from a camera's `modes`; nil when
    /// there are none.
    ///
    /// The nearest size comes first (the same size if there is one; otherwise the closest in
    /// width and height, each as a ratio, the larger one on a tie, since scaling down loses less
    /// than scaling up), then the nearest rate at that size. So where raw YUYV cannot reach the
    /// rate at that size and MJPEG can, MJPEG wins; where both reach it, raw wins (nothing to
    /// decode), and among compressed formats MJPEG (what every decoder reads) before the rest.
    package static func best(in modes: [CameraMode], width: Int, height: Int, fps: Double) -> Choice? {
        let candidates = modes.enumerated().filter { $0.element.width > 0 && $0.element.height > 0 }
            .map { index, mode in
                let rate = mode.frameRates.min { (abs($0 - fps), -$0) < (abs($1 - fps), -$1) }
                return (index: index, mode: mode, rate: rate)
            }
        func sizeDistance(_ mode: CameraMode) -> Double {
            abs(log(Double(mode.width) / Double(max(width, 1)))) + abs(log(Double(mode.height) / Double(max(height, 1))))
        }
        func rank(_ mode: CameraMode) -> Int { !mode.isCompressed ? 0 : mode.pixelFormat == "MJPG" ? 1 : 2 }
        let best = candidates.min { a, b in
            let (sizeA, sizeB) = (sizeDistance(a.mode), sizeDistance(b.mode))
            if !isClose(sizeA, sizeB) { return sizeA < sizeB }
            let (areaA, areaB) = (a.mode.width * a.mode.height, b.mode.width * b.mode.height)
            if areaA != areaB { return areaA > areaB }
            let rateA = a.rate.map { abs($0 - fps) } ?? .infinity
            let rateB = b.rate.map { abs($0 - fps) } ?? .infinity
            if !isClose(rateA, rateB) { return rateA < rateB }
            if (a.rate ?? 0) != (b.rate ?? 0) { return (a.rate ?? 0) > (b.rate ?? 0) }
            if rank(a.mode) != rank(b.mode) { return rank(a.mode) < rank(b.mode) }
            return a.index < b.index
        }
        return best.map { Choice(mode: $0.mode, frameRate: $0.rate ?? fps) }
    }

    private static func isClose(_ a: Double, _ b: Double) -> Bool {
        a == b || abs(a - b) < 1e-9
    }
}
