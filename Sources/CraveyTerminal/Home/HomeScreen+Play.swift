import CraveyCommands
import CraveyKit
import Foundation

/// A play on the home screen's player line.
struct Playing {
    let manager: PlaybackManager
    let recording: Recording
    /// The line `cravey play` draws, drawn here in the screen's own terms.
    let line: ProgressLine
    var event: PlaybackEvent
    /// False for the look back's play, which is not counted.
    let counted: Bool
    var speed: Double { event.speed }
}

/// The player line: Enter, Quick Play's keys and the look back's `p` play here, through the
/// library's door (counted as `cravey play` counts), a video in its window, the desktop's media
/// keys on it; its keys are `cravey play`'s (``PlayerCommand``).
extension HomeScreen {
    /// Plays `recording` on the player line (a play already under way is stopped, and counted,
    /// first); `counted` false for the look back's.
    func play(_ recording: Recording, counted: Bool = true) {
        guard capture == nil, !recorderBusy else {
            message = ("A recording is under way: Enter or s stops it first.", false)
            return
        }
        playing?.manager.stop()
        guard startingPlay == nil else { return }
        startingPlay = recording
        let library = library, inbox = inbox
        let window = recording.type == .video && Player.hasDisplay
        // As `cravey play` does: the settings' loudness, and the desktop shown the clip's title
        // only when desktop.show-titles says so.
        let settings = Settings.current
        let options = PlaybackOptions(countsPlay: counted, showsVideo: window, showsTitle: settings.showsTitles,
                                      loudnessTarget: settings.loudness, speed: speed)
        Task {
            let manager: PlaybackManager
            do {
                manager = try await library.play(recording, options: options)
            } catch {
                inbox.post { home in
                    home.startingPlay = nil
                    home.say(error)
                }
                return
            }
            inbox.post { $0.started(manager, recording, counted: counted) }
            // The desktop's media keys and controls drive the same manager (MPRIS), for a
            // counted play; best effort, as for `cravey play`.
            let shown = settings.showsTitles
            let desktop = counted
                ? await MediaPlayerService.start(for: manager, playing: recording, title: shown ? recording.title : Player.discreetLine,
                                                 artwork: shown ? library.thumbnailURL(of: recording) : nil, notification: nil)
                : nil
            for await event in manager.events {
                desktop?.update(event)
                inbox.post { $0.played(event, by: manager) }
            }
            let outcome: Result<PlaybackSummary, any Error>
            do {
                outcome = .success(try await manager.result())
            } catch {
                outcome = .failure(error)
            }
            await desktop?.end()
            inbox.post { $0.ended(manager, recording, outcome) }
        }
    }

    private func started(_ manager: PlaybackManager, _ recording: Recording, counted: Bool) {
        startingPlay = nil
        let line = ProgressLine(duration: manager.duration, waveform: library.storedWaveform(of: recording), colour: screen.colour)
        playing = Playing(manager: manager, recording: recording, line: line, event: manager.event, counted: counted)
        if let problem = manager.videoProblem { message = (Messages.text(for: problem) + " Playing its sound only.", true) }
        if quitting { manager.stop() }
    }

    private func played(_ event: PlaybackEvent, by manager: PlaybackManager) {
        guard playing?.manager === manager else { return }
        playing?.event = event
        speed = event.speed
    }

    private func ended(_ manager: PlaybackManager, _ recording: Recording, _ outcome: Result<PlaybackSummary, any Error>) {
        if playing?.manager === manager { playing = nil }
        switch outcome {
        case .success(let summary):
            let title = Format.visible(recording.title)
            let how = summary.completed ? "to the end" : "stopped at \(Format.duration(summary.position))"
            let plays = summary.recording?.playCount ?? recording.playCount
            let counts = summary.counted ? "counted: \(plays) play\(plays == 1 ? "" : "s")" : "not counted"
            if message == nil { message = ("Played \"\(title)\" \(how) (\(counts)).", false) }
        case .failure(let error):
            say(error)
        }
        refresh()
    }

    /// The player's keys while a clip plays, as `cravey play` has them (space, arrows, digits, a
    /// click on the bar, Escape stops), and its speed: `[` and `]` by 10%, Backspace back to 1x.
    /// False for a key that is not the player's.
    func playerKey(_ key: TerminalScreen.Key) -> Bool {
        guard let playing else { return false }
        let manager = playing.manager
        switch key {
        case .click(let row, let column) where row == layout.player:
            if let bar = playerBar, bar.contains(column) {
                manager.perform(.seek(fraction: Double(column - bar.lowerBound) / Double(ProgressLine.width)))
            }
        case .backspace:
            manager.perform(.resetSpeed)
        case .left:
            manager.perform(.skip(-15))
        case .right:
            manager.perform(.skip(15))
        case .escape:
            manager.stop()
        case .character(let character) where character != "q":
            guard let command = PlayerCommand(.character(character)) else { return false }
            manager.perform(command)
        default:
            return false
        }
        return true
    }
}
