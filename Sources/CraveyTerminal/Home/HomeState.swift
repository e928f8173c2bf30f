import CraveyKit
import Foundation

/// The home screen as a value: the list, the status line, the player line and the terminal's
/// size. ``apply(_:)`` decides what an event does (the keys through ``HomeKeys``) and returns
/// the effects for the shell (``HomeScreen``) to carry out; ``HomeFrame`` draws it.
///
/// It reads the library a page at a time (``LibraryBrowser``) and changes nothing there: every
/// change is an effect, made through the library's door by the shell.
struct HomeState {
    /// What the terminal gives the screen.
    struct View {
        /// Where things are drawn, for the size the terminal has.
        var layout: HomeLayout
        /// Whether colours are used.
        let colour: Bool
        /// The clip whose waveform is kept, and the waveform (nil: none stored).
        var waveform: (id: RecordingID, waveform: Waveform?)?
        /// The transcript of the clip whose waveform is kept (nil: none stored).
        var transcript: Transcript?
    }

    /// The list: its order, filter, page and selection.
    var list: LibraryBrowser
    var dialog = HomeDialog()
    var media = MediaState()
    var view: View
    /// Sync: whether one runs, and the last one's outcome.
    var sync = HomeSync()
    /// Set by `q`, Ctrl-C, SIGTERM or SIGHUP: the screen ends once the play is counted and the
    /// recording saved.
    private(set) var quitting = false

    /// The state of a screen of `rows` by `columns` on `library`, before anything is read
    /// (``apply(_:)`` with ``HomeEvent/libraryChanged`` reads it).
    init(library: RecordingLibrary, rows: Int, columns: Int, colour: Bool) {
        list = LibraryBrowser(library: library)
        view = View(layout: HomeLayout(rows: rows, columns: columns), colour: colour)
        list.rows = max(view.layout.list.count, 1)
    }

    /// Reads the list for the first time (a failure ends the screen, as nothing can be shown).
    mutating func read() throws {
        try list.read()
        keepWaveform()
    }

    /// The library: the one the list reads, and the one changes go to through its door.
    var library: RecordingLibrary { list.library }

    /// Whether the screen is done: asked to quit, and nothing plays or records any more.
    var finished: Bool { quitting && media.idle }

    /// What `event` does: the state changed, and the effects to carry out, in order.
    mutating func apply(_ event: HomeEvent) -> [HomeEffect] {
        var effects: [HomeEffect] = []
        switch event {
        case .key(let key): effects = HomeKeys.handle(key, &self)
        case .pastedLineBreak: HomeKeys.refuseLineBreak(&self)
        case .keysHandled: updateList { try $0.readTypedFilter() }
        case .drawn: dialog.drawn()
        case .idle: updateList { try $0.count() }
        case .libraryChanged:
            refresh()
            // Another process's change of them too (`cravey remind`).
            if HomeReminders.shown(dialog.mode) != nil { effects = [.readReminders] }
        case .syncLanded: effects = sync.landed() ? [.sync] : []
        case .synced(let outcome, let time): effects = synced(outcome, at: time)
        case .unsent(let error, let time):
            let before = sync.last
            sync.unsent(error, at: time)
            sayNewFailure(since: before)
        case .remindersRead(let listing, let said): HomeReminders.read(listing, said: said, &self)
        case .resized(let rows, let columns, let paused):
            resize(rows: rows, columns: columns)
            if paused { dialog.say("Paused while suspended: space goes on.") }
            refresh()
        case .quit: effects = quit()
        case .said(let message): dialog.message = message
        case .playStarted(let recording, let duration, let event, let counted, let problem):
            effects = playStarted(recording, duration: duration, event, counted: counted, problem: problem)
        case .played(let event): effects = played(event)
        case .playEnded(let recording, let outcome, let current): effects = playEnded(recording, outcome, current: current)
        case .playFailed(let error):
            media.startingPlay = nil
            say(error)
        case .recordingStarting(let made): recordingStarting(made)
        case .recordingStarted:
            media.recorderBusy = false
            media.capture = MediaState.Capture(meter: MeterLine(colour: view.colour))
            if quitting { effects = [.stopRecording] }
        case .recordingFailed(let error):
            media.recorderBusy = false
            say(error)
        case .recorded(let event, let paused): recorded(event, paused: paused)
        case .recordingSaved(let saved): effects = recordingSaved(saved)
        case .transcribed(let recording, let transcript):
            let count = transcript.words.count
            var said = "Heard \(count) word\(count == 1 ? "" : "s") in \"\(Format.visible(recording.title))\"."
            if let lookBack = media.lookBack, lookBack.recording.id == recording.id, let proposed = transcript.proposedTitle,
               lookBack.untitled {
                HomeLookBack.tell(.titleProposed(proposed), about: recording.id, &self)
                said += " t proposes \"\(Format.visible(proposed))\" as its title."
            }
            dialog.say(said)
            // The details read its words again.
            if view.waveform?.id == recording.id { view.waveform = nil }
            refresh()
        case .edited(let recording, let trimmed): edited(recording, trimmed: trimmed)
        case .removed(let recording, let said):
            if media.lookBack?.recording.id == recording.id { media.lookBack = nil }
            dialog.say("\(said) \"\(Format.visible(recording.title))\".")
            refresh()
        case .cutProposed(let recording, _, let proposal, lookBack: true):
            effects = HomeLookBack.tell(.proposed(proposal), about: recording.id, &self)
        case .cutProposed(let recording, let asked, let proposal, lookBack: false): cutProposed(recording, asked, proposal)
        case .cut(let original, let trimmed):
            dialog.say("Trimmed \"\(Format.visible(trimmed.title))\": \(ClipTime.text(original.duration)) -> \(ClipTime.text(trimmed.duration)).")
            // The look back says it too, as `cravey record`'s does.
            effects = HomeLookBack.tell(.shaped(trimmed, waveform: library.analysis.storedWaveform(of: trimmed), trimmed: true), about: trimmed.id, &self)
            if view.waveform?.id == trimmed.id { view.waveform = nil }  // drawn again from the new one
            refresh()
        case .noiseCleaned(let figures): effects = HomeLookBack.cleaned(figures: figures, &self)
        case .cleanUpKept(let kept):
            dialog.say("Kept the cleaned \"\(Format.visible(kept.title))\".")
            effects = HomeLookBack.tell(.shaped(kept, waveform: library.analysis.storedWaveform(of: kept), trimmed: false), about: kept.id, &self)
            if view.waveform?.id == kept.id { view.waveform = nil }  // drawn again from the new one
            refresh()
        case .failed(let error, let suffix, let refresh):
            say(error, suffix)
            if refresh { self.refresh() }
        }
        keepWaveform()
        return effects
    }

    // MARK: - The list

    /// Changes what the list shows (``LibraryBrowser``): a failure to read is said on the
    /// status line.
    mutating func updateList(_ change: (inout LibraryBrowser) throws -> Void) {
        do {
            try change(&list)
        } catch {
            say(error)
        }
    }

    /// Reads again what is shown, after a change of the library (this process's or another's).
    private mutating func refresh() {
        updateList { try $0.refresh() }
    }

    /// Lays the screen out for `rows` by `columns`.
    private mutating func resize(rows: Int, columns: Int) {
        view.layout = HomeLayout(rows: rows, columns: columns)
        list.rows = max(view.layout.list.count, 1)
    }

    /// Reads the stored waveform and transcript of the clip the details show, once per clip,
    /// when they have room for them.
    private mutating func keepWaveform() {
        guard view.layout.details.count >= 4, let recording = media.lookBack?.recording ?? list.selectedRecording,
              view.waveform?.id != recording.id else { return }
        view.waveform = (recording.id, library.analysis.storedWaveform(of: recording))
        view.transcript = library.transcripts.transcript(of: recording)
    }

    // MARK: - Sync

    /// A sync ended: its outcome shown in the header (a failure said on the status line too,
    /// once, not at every sync that fails the same way), the list read again (``LibraryWatch``
    /// reads it too, once the merge's commit lands), and one more when something landed meanwhile.
    private mutating func synced(_ outcome: HomeSync.Outcome, at time: Date) -> [HomeEffect] {
        let before = sync.last
        let again = sync.ended(outcome, at: time)
        sayNewFailure(since: before)
        refresh()
        if again { return [.sync] }
        if case .merged(_, _, _, arriving: true) = outcome { return [.syncLater] }
        return []
    }

    /// Says the last sync's failure on the status line when it is not the one `before` (the
    /// header shows it from then on).
    private mutating func sayNewFailure(since before: HomeSync.Outcome?) {
        if let after = sync.last, after != before, case .failed(_, let message) = after { dialog.say(message, warning: true) }
    }

    // MARK: - Leaving

    /// Ends the screen (q, Ctrl-C, SIGTERM, SIGHUP): a play is stopped and counted, a recording
    /// stopped and saved, and the screen ends once they are.
    mutating func quit() -> [HomeEffect] {
        quitting = true
        var effects: [HomeEffect] = media.playing != nil ? [.player(.stop)] : []
        if media.capture != nil { effects.append(.stopRecording) }
        if case .cleanUp = dialog.mode {
            dialog.mode = .browsing
            effects.append(.settleCleanUp(keep: false))
        }
        return effects
    }

    // MARK: - Messages

    /// Shows what a person reads of `error` on the status line.
    mutating func say(_ error: any Error, _ suffix: String = "") {
        let text = (error as? CraveyError).map { Messages.text(for: $0) } ?? "\(error)"
        dialog.say(text + suffix, warning: true)
    }

    // MARK: - What the media and the library say

    private mutating func playStarted(_ recording: Recording, duration: Double, _ event: PlaybackEvent, counted: Bool,
                                      problem: CraveyError?) -> [HomeEffect] {
        media.startingPlay = nil
        let line = ProgressLine(duration: duration, waveform: library.analysis.storedWaveform(of: recording), colour: view.colour)
        media.playing = MediaState.Play(recording: recording, line: line, event: event, counted: counted,
                                        markers: MarkerKeys(recording.markers),
                                        spoken: library.transcripts.transcript(of: recording).map(SpokenLine.init))
        if let problem { dialog.say(Messages.text(for: problem) + " Playing its sound only.", warning: true) }
        return quitting ? [.player(.stop)] : []
    }

    /// A play's progress: the player line follows it; the look back's play back tells it where
    /// it is, and stops at the end of the 3 s `[` or `]` hears.
    private mutating func played(_ event: PlaybackEvent) -> [HomeEffect] {
        media.playing?.event = event
        media.speed = event.speed
        guard let playing = media.playing, !playing.counted else { return [] }
        HomeLookBack.tell(.playing(at: event.position), about: playing.recording.id, &self)
        guard let until = media.hearingUntil, event.position >= until - 0.02 else { return [] }
        media.hearingUntil = nil
        return [.player(.stop)]
    }

    private mutating func playEnded(_ recording: Recording, _ outcome: Result<PlaybackSummary, any Error>, current: Bool) -> [HomeEffect] {
        if current { (media.playing, media.hearingUntil) = (nil, nil) }
        // A clean-up heard: the next of the two, or the question again.
        if case .cleanUp = dialog.mode {
            return HomeLookBack.tell(.heard(stoppedAt: try? outcome.get().position), &self)
        }
        if case .success(let summary) = outcome, !summary.counted {
            HomeLookBack.tell(.playedBack(at: summary.completed ? 0 : summary.position, marks: []), about: recording.id, &self)
        }
        switch outcome {
        case .success(let summary):
            let title = Format.visible(recording.title)
            let how = summary.completed ? "to the end" : "stopped at \(Format.duration(summary.position))"
            let plays = summary.recording?.playCount ?? recording.playCount
            let counts = summary.counted ? "counted: \(plays) play\(plays == 1 ? "" : "s")" : "not counted"
            if dialog.message == nil { dialog.say("Played \"\(title)\" \(how) (\(counts)).") }
        case .failure(let error):
            say(error)
        }
        refresh()
        return []
    }

    private mutating func recordingStarting(_ made: Result<RecordingLibrary, any Error>) {
        media.lookBack = nil
        switch made {
        case .success(let library):
            list.library = library
            media.recorderBusy = true
        case .failure(let error):
            say(error)
        }
    }

    private mutating func recorded(_ event: RecordingEvent, paused: Bool) {
        switch event {
        case .level(let level):
            media.capture?.meter.add(level)
            media.capture?.level = level
        case .paused, .resumed:
            media.capture?.meter.paused = paused
        case .frameRate(let rate):
            media.capture?.meter.frameRate = rate
        case .silenceWarning(let source):
            dialog.say("The input from '\(source)' has been silent for 2 seconds: the microphone may be muted or the wrong source (`cravey devices`).", warning: true)
        case .interrupted(let reason):
            dialog.say("The recording ended early: \(reason)", warning: true)
        case .started, .videoFrames:
            break
        }
    }

    private mutating func recordingSaved(_ saved: Result<Recording, any Error>) -> [HomeEffect] {
        media.capture = nil
        media.recorderBusy = false
        switch saved {
        case .success(let clip):
            // Said on stderr once the terminal is given back, when quitting (``HomeScreen``).
            if quitting { return [] }
            // The player line says it is saved, and the status line gives the look back's keys.
            media.lookBack = LookBackState(recording: clip, waveform: library.analysis.storedWaveform(of: clip), proposedTitle: nil,
                                           width: view.layout.columns - 2)
            // The new clip, selected in the list: without the filter if it hides it.
            updateList { try $0.show(clip.id) }
            // Saved: its words follow.
            return [.transcribe(clip)]
        case .failure(let error):
            say(error)
            refresh()
            return []
        }
    }

    private mutating func edited(_ recording: Recording, trimmed: [String]) {
        let note = trimmed.isEmpty ? "" : " (the spaces at the ends of the \(trimmed.joined(separator: " and ")) were removed)"
        dialog.say("Updated \"\(Format.visible(recording.title))\"\(note).")
        HomeLookBack.tell(.edited(recording), about: recording.id, &self)
        refresh()
    }

    private mutating func cutProposed(_ recording: Recording, _ asked: ClipVersion, _ proposal: TrimProposal?) {
        let title = Format.visible(recording.title)
        if let proposal, !proposal.keepsAll(of: recording.duration) {
            // The clip's title heads its details above: the question fits 80 columns without it.
            let question = LookBackState.cutQuestion(recording, start: proposal.start, end: proposal.end, titled: false)
            dialog.mode = .confirm(question: question, asked: asked, yes: .cut(start: proposal.start, end: proposal.end))
        } else {
            dialog.say(proposal == nil ? "No sound above the noise of \"\(title)\": nothing to cut." : "Nothing to cut: the sound fills \"\(title)\".")
        }
        refresh()
    }
}
