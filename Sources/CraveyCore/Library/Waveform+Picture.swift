import Foundation

extension Waveform {
    /// The picture's size when none is asked for: audiowaveform's, 800 by 250 pixels.
    public static let defaultImageSize = (width: 800, height: 250)

    /// The row of a `height`-pixel picture a sample value is drawn at: full scale positive at
    /// the top, full scale negative at the bottom, silence in the middle.
    package static func row(of value: Int16, height: Int) -> Int {
        let fromTop: Double = (32767.5 - Double(value)) / 65535
        return Int((fromTop * Double(height - 1)).rounded())
    }

    /// The waveform as a PNG `width` by `height` pixels (both at least 1): the whole clip from
    /// left to right, each column a line from its highest to its lowest sample (``columns(_:)``)
    /// in dark grey (#3A3A3A, audiowaveform's colour) on white, silence a line across the middle.
    public func pngImage(width: Int = defaultImageSize.width, height: Int = defaultImageSize.height) -> Data {
        var picture = PNG(width: width, height: height, colours: (off: (0xFF, 0xFF, 0xFF), on: (0x3A, 0x3A, 0x3A)))
        for (x, column) in columns(width).enumerated() {
            picture.drawColumn(x, from: Self.row(of: column.max, height: height), to: Self.row(of: column.min, height: height))
        }
        return picture.encoded()
    }

    /// The waveform in one line of `width` characters for a terminal: each the height (U+2581
    /// "▁" to U+2588 "█") of the loudest sample under it, against the loudest of the clip, so
    /// a quiet clip shows its shape too. A silent clip is a line of "▁".
    package func sparkline(width: Int) -> String {
        let magnitudes = columns(width).map(\.magnitude)
        let loudest = magnitudes.max() ?? 0
        return String(String.UnicodeScalarView(magnitudes.map { magnitude in
            Self.bar(loudest == 0 ? 0 : Int(min(magnitude * 8 / loudest, 7)))
        }))
    }

    /// The bar of a terminal's waveform of height `level`, 0 (U+2581 "▁") to 7 (U+2588 "█").
    package static func bar(_ level: Int) -> Unicode.Scalar {
        Unicode.Scalar(0x2581 + UInt32(min(max(level, 0), 7)))!
    }
}
