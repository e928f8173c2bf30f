import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// Playback's own stages with no sound server: the gain stage, and a cork the server refuses
/// (an output that fails, beside the real pause of pausesAndResumes).
extension PlaybackTests {
    @Test("the gain stage multiplies and clamps every sample to full scale")
    func gainStage() {
        var samples: [Float] = [0.5, -0.5, 1.5, -3, 0]
        PlaybackManager.apply(2, to: &samples)
        #expect(samples == [1, -1, 1, -1, 0])
        var unchanged: [Float] = [0.25, -1.25]
        PlaybackManager.apply(1, to: &unchanged)
        #expect(unchanged == [0.25, -1])
    }

    @Test("a cork the sound server refuses is no pause: the pause is not made, no paused event is sent, and the position goes on")
    func refusedCork() throws {
        // Given a playback's control writing to an output that refuses to cork (the fault a
        // server that has gone away gives; the real pause is pausesAndResumes, in PlaybackTests.swift)
        let control = PlaybackControl(start: 0, duration: 10)
        let output = RefusingOutput()
        let events = Locked<[PlaybackEvent]>([])
        control.attach(output) { event in events.withLock { $0.append(event) } }
        control.openSegment(generation: 0, start: 0, streamTime: 0, speed: 1)

        // When the pipeline's pause hook asks for the pause
        #expect(throws: RefusingOutput.Refused.self) { try control.pauseChanged(true) }

        // Then nothing says paused: the player's line stays playing, as the sink does
        #expect(events.withLock { $0 }.allSatisfy { $0.state == .playing }, "\(events.withLock { $0 })")
        #expect(control.event.state == .playing)
    }
}

/// A sound output that plays on the system's clock but refuses every cork.
private final class RefusingOutput: SoundOutput {
    struct Refused: Error {}
    private let clock = SilentOutput(sampleRate: 48_000, channels: 1)

    func write(_ samples: [Float], while keepGoing: () -> Bool) throws -> Bool { clock.write(samples, while: keepGoing) }
    func cork(_ paused: Bool) throws { throw Refused() }
    func flush() throws -> Double { clock.flush() }
    func drain(while keepGoing: () -> Bool) throws -> Bool { clock.drain(while: keepGoing) }
    var playedTime: Double? { clock.playedTime }
    func reportPlayedTime(every interval: Double, _ body: @escaping @Sendable (Double?) -> Void) {
        clock.reportPlayedTime(every: interval, body)
    }
    func wakeUp() { clock.wakeUp() }
}
