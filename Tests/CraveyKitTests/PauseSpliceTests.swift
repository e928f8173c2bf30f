import Foundation
import Testing
@testable import CraveyKit

/// The joint a pause leaves in a recording's audio, without a sound server: blocks of a tone
/// whose phase jumps where the pause was.
@Suite("Pausing a recording's audio")
struct PauseSpliceTests {
    /// `frames` samples of a 440 Hz tone at 48 kHz and amplitude 0.5, from sample `start` of it.
    func tone(from start: Int, frames: Int = 1920) -> [Int16] {
        (start..<start + frames).map { Int16((0.5 * 32767 * sin(2 * Double.pi * 440 * Double($0) / 48_000)).rounded()) }
    }

    @Test("blocks read while paused are left out; the joint is in phase and smooth, its length the sum of what was recorded")
    func joinsInPhase() {
        // Given 10 blocks of a tone, then 7 read while paused, then 10 more, of a tone going on all along
        var splice = PauseSplice(sampleRate: 48_000, channels: 1)
        var recorded: [Int16] = []
        var changes: [PauseSplice.Change] = []
        var skipped = 0
        for block in 0..<27 {
            let taken = splice.take(tone(from: block * 1920), paused: (10..<17).contains(block))
            recorded += taken.samples
            skipped += taken.skipped
            if let change = taken.change { changes.append(change) }
        }

        // Then 20 blocks less the few frames skipped to meet in phase (under 10 ms)
        #expect(changes == [.paused, .resumed])
        #expect(skipped < 480 && recorded.count == 20 * 1920 - skipped)
        // And no sample-to-sample step is larger than the tone's own steepest (no click), nor
        // does any 5 ms around the joint fall below the tone's level (no dip, no gap)
        let steepest = 0.5 * 32767 * 2 * Double.pi * 440 / 48_000
        let steps = zip(recorded.dropFirst(), recorded).map { abs(Double($0) - Double($1)) }
        #expect(steps.max()! <= steepest * 1.1, "largest step \(steps.max()!) against \(steepest)")
        let joint = 10 * 1920
        for start in stride(from: joint - 480, to: joint + 480, by: 60) {
            let window = recorded[start..<start + 240].map { Double($0) }
            let rms = (window.reduce(0) { $0 + $1 * $1 } / 240).squareRoot()
            #expect(abs(rms / (0.5 * 32767 / 2.0.squareRoot()) - 1) < 0.1, "rms \(rms) at \(start)")
        }
    }

    @Test("a pause before anything was recorded only delays the start: nothing is faded in")
    func pauseFirst() {
        var splice = PauseSplice(sampleRate: 48_000, channels: 1)
        #expect(splice.take(tone(from: 0), paused: true).change == .paused)
        #expect(splice.take(tone(from: 1920), paused: true).samples.isEmpty)
        let first = splice.take(tone(from: 3840), paused: false)
        #expect(first.change == .resumed && first.samples == tone(from: 3840) && first.skipped == 0)
        #expect(splice.take(tone(from: 5760), paused: false).samples == tone(from: 5760))
    }

    @Test("stereo: both channels are joined at the same frame")
    func stereo() {
        var splice = PauseSplice(sampleRate: 48_000, channels: 2)
        func stereo(_ mono: [Int16]) -> [Int16] { mono.flatMap { [$0, $0 / 2] } }
        var recorded = splice.take(stereo(tone(from: 0)), paused: false).samples
        _ = splice.take(stereo(tone(from: 1920)), paused: true)
        recorded += splice.take(stereo(tone(from: 7 * 1920 + 100)), paused: false).samples
        #expect(recorded.count % 2 == 0)
        let (left, right) = (stride(from: 0, to: recorded.count, by: 2).map { recorded[$0] },
                             stride(from: 1, to: recorded.count, by: 2).map { recorded[$0] })
        #expect(zip(left, right).allSatisfy { abs(Int($0.0) / 2 - Int($0.1)) <= 1 })
    }
}
