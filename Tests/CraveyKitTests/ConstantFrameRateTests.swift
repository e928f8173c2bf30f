import Testing
@testable import CraveyKit

/// The rules that hold a video to a constant frame rate against the audio, with numbered pictures
/// for pictures: which picture each frame shows, and what was dropped or repeated.
@Suite("Constant frame rate")
struct ConstantFrameRateTests {
    /// Feeds pictures 0, 1, 2... at `times` (seconds), releasing frames as the audio reaches each
    /// picture's time plus `audioLag`, then finishes at `end`; returns the picture of every frame.
    func frames(times: [Double], origin: Double = 0, audioLag: Double = 0.04, end: Double,
                rate: Int = 10) -> (pictures: [Int], timeline: ConstantFrameRate<Int>) {
        var timeline = ConstantFrameRate<Int>(frameRate: rate)
        timeline.origin = origin
        var out: [(picture: Int, frame: Int64)] = []
        for (picture, time) in times.enumerated() {
            timeline.add(picture, at: time)
            out += timeline.release(upTo: min(max(time + audioLag - origin, 0), end))
        }
        out += timeline.finish(at: end)
        #expect(out.map(\.frame) == Array(0..<Int64(out.count)), "frames are numbered without a gap")
        return (out.map(\.picture), timeline)
    }

    @Test("a steady camera with jitter under a frame: every picture once, nothing dropped or repeated")
    func steady() {
        let times = (0..<30).map { (i: Int) -> Double in Double(i) / 10 + (i % 3 == 0 ? 0.03 : -0.02) }
        let (pictures, timeline) = frames(times: times, end: 3)
        #expect(pictures == Array(0..<30))
        #expect(timeline.dropped == 0 && timeline.duplicated == 0)
    }

    @Test("a camera twice too fast: every other picture dropped, one per frame")
    func tooFast() {
        let (pictures, timeline) = frames(times: (0..<40).map { Double($0) / 20 }, end: 2)
        #expect(pictures.count == 20)
        #expect(pictures == Array(stride(from: 0, to: 40, by: 2)), "each frame shows the picture taken at its time")
        #expect(timeline.dropped == 19 && timeline.duplicated == 0)
    }

    @Test("a half-second stall: the picture before it repeats, and the video does not drift")
    func stall() {
        let times = (0..<10).map { Double($0) / 10 } + (15..<30).map { Double($0) / 10 }
        let (pictures, timeline) = frames(times: times, end: 3)
        #expect(pictures.count == 30)
        #expect(Array(pictures[9..<15]) == Array(repeating: 9, count: 6))
        #expect(pictures[15] == 10 && pictures.last == 24)
        #expect(timeline.duplicated == 5 && timeline.dropped == 0)
    }

    @Test("pictures from before the start give frame 0 only; a camera starting late repeats its first picture")
    func start() {
        // Camera 0.33 s early: pictures 0-2 are before the start, picture 3 (at -0.03 s) is frame 0.
        let early = frames(times: (0..<20).map { Double($0) / 10 - 0.33 }, end: 1.5)
        #expect(early.pictures == Array(3..<18))
        // Camera 0.3 s late: its first picture fills frames 0-2.
        let late = frames(times: (0..<12).map { Double($0) / 10 + 0.3 }, end: 1.5)
        #expect(Array(late.pictures.prefix(4)) == [0, 0, 0, 0] && late.pictures.count == 15)
        #expect(late.timeline.duplicated == 3)
    }

    @Test("the video ends with the audio: pictures after it are left out, a camera that stopped early is filled in")
    func end() {
        let long = frames(times: (0..<25).map { Double($0) / 10 }, end: 2.04)
        #expect(long.pictures == Array(0..<20))
        let short = frames(times: (0..<10).map { Double($0) / 10 }, end: 2)
        #expect(short.pictures.count == 20 && Array(short.pictures.suffix(10)) == Array(repeating: 9, count: 10))
    }

    @Test("no frame is written before the audio reaches it; late audio lets at most 8 pictures wait")
    func waitsForAudio() {
        var timeline = ConstantFrameRate<Int>(frameRate: 10)
        for picture in 0..<5 { timeline.add(picture, at: Double(picture) / 10) }
        #expect(timeline.release(upTo: 0).isEmpty, "nothing before the start is known")
        timeline.origin = 0
        #expect(timeline.release(upTo: 0.21).map(\.picture) == [0, 1])
        for picture in 5..<12 { timeline.add(picture, at: Double(picture) / 10) }
        // 10 waiting with the audio at 0.2 s: the oldest go out so that 8 wait.
        #expect(timeline.release(upTo: 0.21).map(\.picture) == [2, 3])
    }

    @Test("audio a second late when the recording ends: with a second of pictures let wait (as the video recorder lets), no frame is past the sound's end; with 8, two are")
    func lateAudioAtTheEnd() {
        func written(waiting: Int) -> [Int64] {
            var timeline = ConstantFrameRate<Int>(frameRate: 25, maxWaiting: waiting)
            timeline.origin = 0
            var frames: [Int64] = []
            // Pictures every 1/25 s up to 2.36 s while the audio has reached 1.6 s; then its
            // last 0.4 s arrive at once and the recording ends at 2.0 s.
            for picture in 0..<60 {
                timeline.add(picture, at: Double(picture) / 25)
                frames += timeline.release(upTo: 1.6).map(\.frame)
            }
            return frames + timeline.finish(at: 2.0).map(\.frame)
        }
        #expect(written(waiting: 25) == Array(0..<50))
        #expect(written(waiting: 8).count == 52, "the reason the recorder lets a second wait")
    }
}

/// A pause cuts a stretch out of the recording's clock: the video leaves out what the audio left out.
@Suite("Constant frame rate across a pause")
struct ConstantFrameRatePauseTests {
    @Test("pictures taken during a pause are left out and the ones after it follow on, neither dropped nor repeated")
    func cutsThePause() {
        // Given a camera at 10 fps for 5 s, and audio paused from 1.0 s to 3.0 s on the clock
        var timeline = ConstantFrameRate<Int>(frameRate: 10)
        timeline.origin = 0
        var out: [(picture: Int, frame: Int64)] = []
        var audio = 0.0
        for picture in 0..<50 {
            let time = Double(picture) / 10
            timeline.add(picture, at: time)
            switch time {
            case 1.0: timeline.cut(from: 1.0)
            case 3.0: timeline.endCut(at: 3.0)
            default: break
            }
            // The audio reaches each picture's time, less what the pause left out.
            if time < 1 || time >= 3 { audio = (time < 1 ? time : time - 2) + 0.04 }
            out += timeline.release(upTo: audio)
        }
        out += timeline.finish(at: 3)

        // Then 3 s of video: pictures 0-9, then 30-49, one a frame
        #expect(out.map(\.frame) == Array(0..<30))
        #expect(out.map(\.picture) == Array(0..<10) + Array(30..<50))
        #expect(timeline.dropped == 0 && timeline.duplicated == 0)
    }

    @Test("while a pause goes on, at most 8 of its pictures wait; a recording stopped while paused ends at the pause")
    func longPause() {
        var timeline = ConstantFrameRate<Int>(frameRate: 10)
        timeline.origin = 0
        var out: [(picture: Int, frame: Int64)] = []
        for picture in 0..<10 {
            timeline.add(picture, at: Double(picture) / 10)
            out += timeline.release(upTo: Double(picture) / 10 + 0.04)
        }
        timeline.cut(from: 1.0)
        // A minute of pictures while paused: none is written, and few are kept.
        for picture in 10..<610 {
            timeline.add(picture, at: Double(picture) / 10)
            out += timeline.release(upTo: 1.0)
        }
        out += timeline.finish(at: 1.0)
        #expect(out.map(\.picture) == Array(0..<10))
        #expect(timeline.duplicated == 0)
    }
}
