@testable import CraveyKit
import Foundation
import Testing
@testable import CraveyTerminal

/// A clean-up's listening as a value: keys and listenings ended in, the effects asked for and
/// the line shown out.
@Suite("The clean-up's listening, without a terminal")
struct CleanUpStateTests {
    @Test("deciding: the keys line is the table's; y keeps the cleaned clip, n, Enter and the end of input the clip as it was")
    func decide() {
        var cleanUp = CleanUpState()
        #expect(cleanUp.frame == "p listen (a switches before/after) · y keep it cleaned · n keep it as it was")
        #expect(cleanUp.frame.count <= 79, "the keys fit a line of an 80-column terminal")
        #expect(cleanUp.apply(.key(.character("y"))) == [.keepCleaned])
        #expect(cleanUp.apply(.key(.character("n"))) == [.keepAsItWas])
        #expect(cleanUp.apply(.key(.enter)) == [.keepAsItWas])
        #expect(cleanUp.apply(.key(nil)) == [.keepAsItWas])
        #expect(cleanUp.apply(.key(.character("x"))) == [.askKey] && cleanUp.apply(.key(.escape)) == [.askKey])
    }

    @Test("p listens to the cleaned clip from its start; space pauses it, any other key stops it and the keys are asked again")
    func listen() {
        var cleanUp = CleanUpState()
        #expect(cleanUp.apply(.key(.character("p"))) == [.listen(cleaned: true, from: 0)])
        #expect(cleanUp.frame == "B: after (cleaned); a switches to before, space pauses, any other key stops.")
        #expect(cleanUp.apply(.key(.character(" "))) == [.perform(.togglePause)])
        // y while listening is no decision: it stops the play.
        #expect(cleanUp.apply(.key(.character("y"))) == [.stop])
        #expect(cleanUp.apply(.heard(stoppedAt: 2)) == [.askKey])
        #expect(!cleanUp.listening && cleanUp.frame.hasPrefix("p listen"))
    }

    @Test("a switches to the other at the moment the play stopped, and back; a listening that failed to start asks again")
    func switchBetween() {
        var cleanUp = CleanUpState()
        _ = cleanUp.apply(.key(.character("p")))
        #expect(cleanUp.apply(.key(.character("a"))) == [.stop])
        #expect(cleanUp.apply(.heard(stoppedAt: 3.5)) == [.listen(cleaned: false, from: 3.5)])
        #expect(cleanUp.frame == "A: before; a switches to after (cleaned), space pauses, any other key stops.")
        _ = cleanUp.apply(.key(.character("a")))
        // A play that ended without a position: the switch starts where the last one did.
        #expect(cleanUp.apply(.heard(stoppedAt: nil)) == [.listen(cleaned: true, from: 3.5)])
        #expect(cleanUp.apply(.heard(stoppedAt: nil)) == [.askKey])
    }

    @Test("p again starts from the cleaned clip's start, whatever was heard before")
    func listenAgain() {
        var cleanUp = CleanUpState()
        _ = cleanUp.apply(.key(.character("p")))
        _ = cleanUp.apply(.key(.character("a")))
        _ = cleanUp.apply(.heard(stoppedAt: 4))
        _ = cleanUp.apply(.heard(stoppedAt: 6))
        #expect(cleanUp.apply(.key(.character("p"))) == [.listen(cleaned: true, from: 0)])
        #expect(cleanUp.apply(.key(nil)).isEmpty)
    }

    @Test("what the look back and the clean-up play to be listened to plays at play.loudness (as every play does), on the sink given, never counted")
    func listeningOptions() {
        let options = CleanListening.listening(sink: "desk", from: 2.5, loudness: -20)
        #expect(options.loudnessTarget == -20 && !options.countsPlay && options.sink == "desk" && options.start == 2.5)
        #expect(CleanListening.listening(sink: nil, loudness: -14).loudnessTarget == -14)
    }
}

/// `cravey record`'s meter as a value: keys and the recorder's events in, the effects asked for
/// and the meter's line out.
@Suite("cravey record's meter, without a terminal")
struct RecorderStateTests {
    static func meter(live: Bool = true, spaceToPause: Bool = true, video: RecordingOptions? = nil) -> RecorderState {
        RecorderState(seconds: 5, video: video, spaceToPause: spaceToPause, live: live, colour: false, columns: 80)
    }

    static func level(_ elapsed: Double) -> RecorderState.Event {
        .recording(.level(AudioLevel(rms: -20, peak: -12, elapsed: elapsed)))
    }

    @Test("it says where it records from and its keys, from the key table; without the terminal's keys only Ctrl-C")
    func started() {
        var meter = Self.meter()
        #expect(meter.apply(.recording(.started(source: "mic", latency: 0)))
            == [.say("Recording from mic for 0:05. Space pauses; m marks the moment; Ctrl-C stops and saves.", clearing: false)])
        var plain = Self.meter(spaceToPause: false)
        #expect(plain.apply(.recording(.started(source: "mic", latency: 0))) == [.say("Recording from mic for 0:05. Press Ctrl-C to stop and save.", clearing: false)])
    }

    @Test("space asks to pause or go on; m marks the moment the last level reported, its label typed after (space then the label's)")
    func keys() {
        var meter = Self.meter()
        #expect(meter.apply(.key(.character(" "))) == [.togglePause])
        _ = meter.apply(Self.level(2.5))
        #expect(meter.apply(.key(.character("m"))).isEmpty)
        #expect(meter.apply(.key(.character("a"))).isEmpty && meter.apply(.key(.character(" "))).isEmpty)
        #expect(meter.frame?.hasSuffix(" · ◆ 0:03 label: a ▏") == true, "\(meter.frame ?? "")")
        _ = meter.apply(.key(.enter))
        #expect(meter.markers.finished == [ClipMarker(milliseconds: 2500, label: "a")])
        #expect(meter.frame?.hasSuffix(" · ◆ 1") == true)
        #expect(meter.apply(.key(.character(","))).isEmpty && meter.apply(.key(.character("q"))).isEmpty)
    }

    @Test("a label being typed when the recording stops is kept as typed")
    func labelKeptAtTheStop() {
        var meter = Self.meter()
        _ = meter.apply(Self.level(1))
        _ = meter.apply(.key(.character("m")))
        _ = meter.apply(.key(.character("x")))
        #expect(meter.markers.finished == [ClipMarker(milliseconds: 1000, label: "x")])
    }

    @Test("the meter is drawn at most every 0.1 s of the recording, and never when it only prints lines")
    func drawing() {
        var meter = Self.meter()
        let first = meter.apply(Self.level(0.04))
        #expect(first.count == 1 && meter.frame?.contains("● 0:00.0") == true, "\(meter.frame ?? "")")
        #expect(meter.apply(Self.level(0.08)).isEmpty)
        #expect(meter.apply(Self.level(0.16)).count == 1)
        var plain = Self.meter(live: false)
        #expect(plain.apply(Self.level(0.04)).isEmpty && plain.apply(Self.level(1)).isEmpty)
    }

    @Test("a pause and a resume are said, with the keys that resume; paused, the meter is drawn once and then stays")
    func pauseAndResume() {
        var meter = Self.meter()
        _ = meter.apply(Self.level(1))
        let paused = meter.apply(.recording(.paused(elapsed: 1.2)))
        #expect(paused.first == .say("Paused at 0:01; space or SIGUSR1 (kill -USR1 \(getpid())) resumes.") && paused.count == 2)
        #expect(meter.apply(Self.level(1.5)).isEmpty)
        #expect(meter.apply(.recording(.resumed(elapsed: 1.2))) == [.say("Resumed at 0:01.")])
        #expect(meter.apply(.recording(.interrupted("the source went away"))) == [.say("cravey: recording ended early: the source went away")])
        #expect(meter.apply(.recording(.videoFrames(written: 3, dropped: 0, repeated: 0))).isEmpty)
    }

    @Test("a silent input is said with what to check, the meter's line cleared first; nothing is drawn before the first level, and m then marks 0")
    func silentInput() {
        var meter = Self.meter()
        #expect(meter.frame == nil)
        #expect(meter.apply(.recording(.silenceWarning(source: "mic")))
            == [.say("cravey: warning: the input from 'mic' has been silent for 2 seconds. The microphone may be muted or the wrong source; see `cravey devices` and --device.")])
        _ = meter.apply(.key(.character("m")))
        _ = meter.apply(.key(.enter))
        #expect(meter.markers.finished == [ClipMarker(milliseconds: 0, label: nil)])
        #expect(meter.frame == nil)
    }

    @Test("a video's frames are summed up with its size, rate and camera")
    func videoFrames() {
        let options = RecordingOptions(camera: "test", width: 320, height: 240, frameRate: 15)
        var meter = Self.meter(video: options)
        #expect(meter.apply(.recording(.videoFrames(written: 45, dropped: 1, repeated: 2)))
            == [.say("Video: 45 frames of 320x240 at 15 fps from test (1 dropped, 2 repeated).")])
    }

    @Test("the meter's line and the markers after it fit the terminal's width, narrow (no waveform then) or wide")
    func fitsTheWidth() {
        for columns in [30, 40, 80, 200] {
            var meter = Self.meter()
            meter.columns = columns
            _ = meter.apply(Self.level(3))
            _ = meter.apply(.key(.character("m")))
            _ = meter.apply(.key(.enter))
            // (what shows: the line less the codes that clear it in place)
            let frame = (meter.frame ?? "").replacingOccurrences(of: "\r\u{1B}[2K", with: "")
            #expect(TerminalScreen.width(of: frame) <= columns, "\(columns): \(TerminalScreen.width(of: frame)) \(frame)")
            #expect(frame.hasSuffix(" · ◆ 1"))
        }
    }
}
