import Foundation
import Testing
@testable import CraveyKit

@Test func scratchTranscode() throws {
    for name in ["cover.png", "odd.mkv"] {
        let out = URL(fileURLWithPath: "/tmp/exp/\(name)-out.mp4")
        unlink(out.path)
        try Transcoder.transcode(URL(fileURLWithPath: "/tmp/exp/\(name)"), to: out, format: "mp4")
    }
}
