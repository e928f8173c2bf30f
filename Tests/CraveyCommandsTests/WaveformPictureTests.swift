import CraveyCore
import CraveyKit
import CraveyTestSupport
import Foundation
import Testing

/// The PNG `cravey waveform` draws, run in process (``Outcome``), read back by ffmpeg as the
/// witness: its size, its mode and each column's dark pixels.
extension WaveformCommandTests {
    @Test("the PNG's columns follow the peaks: each column dark from its highest sample's row to its lowest's, on white, 800x250 by default")
    func pictureFollowsPeaks() async throws {
        // Given an imported clip and its stored waveform
        let (library, id) = try await bursts()
        let recordingID = try #require(RecordingID(id))
        let row = try #require(try library.recording(recordingID))
        let waveform = try #require(library.analysis.storedWaveform(of: row))

        // When it is drawn, at the default size and at 300x100
        for (size, arguments) in [((800, 250), [String]()), ((300, 100), ["--width", "300", "--height", "100"])] {
            let png = temporaryFolder().appendingPathComponent("wave-\(size.0).png")
            let drawn = try await Outcome.of(["waveform", id, "--output", png.path, "--library", library.url.path] + arguments)
            try #require(drawn.status == 0, "\(drawn.error)")

            // Then ffmpeg reads a PNG of that size, private, whose dark pixels in each column
            // run from the row of the highest sample under it to the row of the lowest
            #expect(try FileManager.default.attributesOfItem(atPath: png.path)[.posixPermissions] as? Int == 0o600)
            let (width, height) = size
            let raw = temporaryFolder().appendingPathComponent("wave-\(width).gray")
            let decoded = try await run("ffmpeg", ["-v", "error", "-i", png.path, "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
            try #require(decoded.status == 0, "\(decoded.error)")
            let pixels = [UInt8](try Data(contentsOf: raw))
            try #require(pixels.count == width * height)
            #expect(Set(pixels) == [0x3A, 0xFF])
            for (x, column) in waveform.columns(width).enumerated() {
                let dark = (0..<height).filter { pixels[$0 * width + x] == 0x3A }
                #expect(dark.first == Waveform.row(of: column.max, height: height)
                        && dark.last == Waveform.row(of: column.min, height: height)
                        && dark.count == dark.last! - dark.first! + 1, "column \(x): rows \(dark.first ?? -1)...\(dark.last ?? -1)")
            }
        }
    }
}
