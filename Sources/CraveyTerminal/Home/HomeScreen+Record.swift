import CraveyCommands
import CraveyKit
import Foundation

/// A recording on the home screen's player line.
struct Capture {
    let recorder: Recorder
    /// The line `cravey record` draws, drawn here in the screen's own terms.
    var meter: MeterLine
    var level: AudioLevel?
}

/// `r` and `R`: a recording through the library's door, with `cravey record`'s live meter and
/// timer on the player line; then the look back, with `cravey record`'s choices (``Preview``).
extension HomeScreen {
    /// Records from the default microphone (with `video`, the first camera too), until Enter or
    /// `s`; the clip is saved, then looked back at.
    func record(video: Bool) {
        guard capture == nil, !recorderBusy else { return }
        var options = RecordingOptions()
        if video {
            // The cameras on this machine (V4L2); none is said, and nothing starts.
            guard let camera = (try? Cameras.list())?.first else {
                message = ("No camera was found (/dev/video*): R records video with one. r records sound alone.", false)
                return
            }
            options.camera = camera.path
        }
        playing?.manager.stop()
        lookBack = nil
        // A library that is not there yet is made now, as `cravey record` makes it.
        if !library.store.isStored {
            do {
                library = try RecordingLibrary(at: library.url, creating: true)
            } catch {
                return say(error)
            }
        }
        recorderBusy = true
        let library = library, inbox = inbox, createdAt = Date()
        Task {
            let recorder: Recorder
            do {
                recorder = try await library.record(options)
            } catch {
                inbox.post { home in
                    home.recorderBusy = false
                    home.say(error)
                }
                return
            }
            inbox.post { $0.started(recorder) }
            let events = Task {
                for await event in recorder.events { inbox.post { $0.recorded(event, by: recorder) } }
            }
            let saved: Result<Recording, any Error>
            do {
                // Saved with the title `cravey record` gives a clip without one; the look back
                // changes it.
                saved = .success(try await recorder.save(try RecordingMetadata(), createdAt: createdAt))
            } catch {
                saved = .failure(error)
            }
            await events.value
            inbox.post { $0.saved(saved) }
        }
    }

    private func started(_ recorder: Recorder) {
        recorderBusy = false
        capture = Capture(recorder: recorder, meter: MeterLine(colour: screen.colour))
        if quitting { recorder.stop() }
    }

    private func recorded(_ event: RecordingEvent, by recorder: Recorder) {
        guard capture?.recorder === recorder else { return }
        switch event {
        case .level(let level):
            capture?.meter.add(level)
            capture?.level = level
        case .paused, .resumed:
            capture?.meter.paused = recorder.isPaused
        case .frameRate(let rate):
            capture?.meter.frameRate = rate
        case .silenceWarning(let source):
            message = ("The input from '\(source)' has been silent for 2 seconds: the microphone may be muted or the wrong source (`cravey devices`).", true)
        case .interrupted(let reason):
            message = ("The recording ended early: \(reason)", true)
        case .started, .videoFrames:
            break
        }
    }

    private func saved(_ saved: Result<Recording, any Error>) {
        capture = nil
        recorderBusy = false
        switch saved {
        case .success(let clip):
            let said = "Saved \"\(Format.visible(clip.title))\" (\(Format.duration(clip.duration)), \(ByteCount.text(clip.fileSize)))."
            if quitting {
                farewell.append(said)
                return
            }
            // The player line says it is saved, and the status line gives the look back's keys.
            lookBack = clip
            // The new clip, selected in the list: without the filter if it hides it.
            updateList { try $0.show(clip.id) }
        case .failure(let error):
            say(error)
            refresh()
        }
    }

    /// The recorder's keys: space pauses and resumes, Enter or `s` stops and saves, `q` stops,
    /// saves and quits; the list's own keys still move. False for a key left to the list.
    func recordingKey(_ key: TerminalScreen.Key) -> Bool {
        guard let capture else { return false }
        switch key {
        case .character(" "):
            capture.recorder.isPaused ? capture.recorder.resume() : capture.recorder.pause()
        case .enter, .character("s"):
            capture.recorder.stop()
        case .character("q"):
            quit()
        case .character("r"), .character("R"), .character("e"), .character("d"), .character("/"),
             .character("1"), .character("2"), .character("3"):
            message = ("A recording is under way: Enter or s stops and saves it first.", false)
        default:
            return false
        }
        return true
    }

    /// The look back's keys, `cravey record`'s (``Preview/keys``): `p` plays it (not counted),
    /// `t`, `n` and `u` change its words, `d` discards it (asked first), Enter or Escape keep it.
    /// Another key keeps it too and is the list's.
    func lookBackKey(_ key: TerminalScreen.Key) -> Bool {
        guard let clip = lookBack else { return false }
        switch key {
        case .character("p"):
            play(clip, counted: false)
        case .character("t"):
            mode = .prompt(Prompt(question: "Title (at most \(RecordingMetadata.maxTitleLength) characters; empty: \"Recording <date>\"):",
                                  text: clip.title, purpose: .lookBack(library.version(of: clip), field: 0)))
        case .character("n"):
            mode = .prompt(Prompt(question: "Notes (at most \(RecordingMetadata.maxNotesLength) characters; empty: none):",
                                  text: clip.notes ?? "", purpose: .lookBack(library.version(of: clip), field: 1)))
        case .character("u"):
            mode = .prompt(Prompt(question: "Purpose (motivational, craving, reflection or milestone; empty: none):",
                                  text: clip.purpose?.rawValue ?? "", purpose: .lookBack(library.version(of: clip), field: 2)))
        case .character("d"):
            mode = .confirm(question: "Discard recording? This cannot be undone. [y/N]", asked: library.version(of: clip), yes: .discard)
        case .enter, .escape:
            lookBack = nil
            message = ("Kept \"\(Format.visible(clip.title))\".", false)
        default:
            lookBack = nil
            return false
        }
        return true
    }
}
