@testable import CraveyKit
import Testing

/// Where `play --skip-silence` jumps from a position, and what it counts as skipped.
@Suite("Skipping silence while playing")
struct SilenceSkipTests {
    @Test("a position in a quiet stretch jumps to its end once, counting what it skips; too little left, outside, or off: no jump")
    func jumps() {
        var skip = SilenceSkip(spans: [1.25..<3.75, 6.05..<7.5], isOn: true)
        #expect(skip.target(from: 1.0) == nil)
        #expect(skip.target(from: 1.3) == 3.75)
        // While the jump is under way the sink still reports the stretch: no second jump
        #expect(skip.target(from: 1.4) == nil)
        #expect(abs(skip.skipped - 2.45) < 1e-9)
        // Past it, then back into it (a seek back): it jumps again
        #expect(skip.target(from: 3.8) == nil)
        #expect(skip.target(from: 2.0) == 3.75)
        #expect(abs(skip.skipped - 4.2) < 1e-9)
        // Less than 0.6 s of a stretch left is not worth a seek
        #expect(skip.target(from: 7.0) == nil)
        // Turned off, nothing is skipped
        skip.isOn = false
        #expect(skip.target(from: 6.1) == nil)
        skip.isOn = true
        #expect(skip.target(from: 6.1) == 7.5)
    }
}
