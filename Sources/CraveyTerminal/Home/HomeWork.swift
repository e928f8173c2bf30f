import CraveyKit
import Foundation

/// The home screen's work through the library's door and on the media: plays, recordings and
/// changes, each on a task or thread of its own (the writers' lock may wait for another
/// process), what they say posted back as events (``HomeEvent``) through the inbox.
final class HomeWork {
    /// Where the work's results are handed to the home screen's thread.
    let inbox = HomeInbox()
    /// The play on the player line, once started.
    private(set) var manager: PlaybackManager?
    /// The recording under way, once started.
    private(set) var recorder: Recorder?
    /// The sound of the clip last recorded, as it was captured, until its words are heard from it.
    private var heldSound: (id: RecordingID, sound: HeldSound)?
    /// The clean-up being compared (the look back's `c`), until it is kept or discarded.
    private var cleanUp: NoiseCleanup?
    /// Whether a sync is asked for in a few seconds already (``syncLater()``).
    private var syncsLater = false
    /// What to say on stderr once the terminal is given back (a recording saved on the way out).
    private(set) var farewell: [String] = []
    /// The loudness plays are at, whether the desktop is shown titles, and the words heard after a save.
    let settings: AppSettings

    init(settings: AppSettings) {
        self.settings = settings
    }

    /// Carries out `effect` on `library`; returns what it says at once (a refusal, a library made).
    func carry(_ effect: HomeEffect, on library: RecordingLibrary) -> [HomeEvent] {
        switch effect {
        case .play(let recording, let counted, let speed, let start): play(recording, counted: counted, speed: speed, from: start, library)
        case .player(let command): manager?.perform(command)
        case .mark(let id, let marker): mark(id, marker, library)
        case .record(let video): return record(video: video, library)
        case .pauseRecording:
            if let recorder { recorder.isPaused ? recorder.resume() : recorder.pause() }
        case .stopRecording: recorder?.stop()
        case .transcribe(let recording): transcribe(recording, library)
        case .edit(let asked, let answers): edit(asked, answers, library)
        case .remove(let asked, let how): remove(asked, how, library)
        case .proposeCut(let asked, let lookBack): proposeCut(asked, lookBack: lookBack, library)
        case .cut(let asked, let start, let end): cut(asked, from: start, to: end, library)
        case .cleanNoise(let asked): clean(asked, library)
        case .hearCleanUp(let cleaned, let from): hearCleanUp(cleaned: cleaned, from: from, library)
        case .settleCleanUp(let keep): settleCleanUp(keep: keep, library)
        case .redrawAll: break  // the terminal's: ``HomeScreen``
        case .readReminders, .saveReminder, .pauseReminder, .removeReminder: reminders(effect, library)
        case .sync: sync(library)
        case .syncLater: syncLater()
        }
        return []
    }

    /// Pauses what plays or records (Ctrl-Z); true when something plays or records.
    func pause() -> Bool {
        if let manager, manager.event.state == .playing { manager.pause() }
        if let recorder, !recorder.isPaused { recorder.pause() }
        return manager != nil || recorder != nil
    }

    /// Plays `recording` on the player line through the door (counted as `cravey play` counts),
    /// a video in its window, the desktop's media keys on it.
    private func play(_ recording: Recording, counted: Bool, speed: Double, from start: Double, _ library: RecordingLibrary) {
        let inbox = inbox
        // As `cravey play` plays it (``PlayController``).
        let controller = PlayController(library: library, settings: settings)
        let request = PlayController.Request(start: start, speed: speed, counted: counted)
        Task {
            let manager: PlaybackManager
            do {
                manager = try await controller.start(recording, request)
            } catch {
                inbox.post { $0.send(.playFailed(error)) }
                return
            }
            HomeWork.started(manager, recording, counted: counted, inbox: inbox)
            // The desktop's media keys and controls drive the same manager (MPRIS), for a
            // counted play, as for `cravey play`.
            let desktop = counted ? await controller.desktop(for: manager, playing: recording, notifying: false) : nil
            await HomeWork.follow(manager, recording, desktop: desktop, inbox: inbox)
        }
    }

    /// Shows a play started on the player line.
    private static func started(_ manager: PlaybackManager, _ recording: Recording, counted: Bool, inbox: HomeInbox) {
        inbox.post { home in
            home.work.manager = manager
            home.send(.playStarted(recording, duration: manager.duration, manager.event, counted: counted,
                                   videoProblem: manager.videoProblem))
        }
    }

    /// Follows a play on the player line to its end, and the desktop's controls on it (if any).
    private static func follow(_ manager: PlaybackManager, _ recording: Recording, desktop: MediaPlayerService?, inbox: HomeInbox) async {
        let outcome = await PlayController.follow(manager, desktop: desktop) { event in
            inbox.post { home in
                if home.work.manager === manager { home.send(.played(event)) }
            }
        }
        inbox.post { home in
            let current = home.work.manager === manager
            if current { home.work.manager = nil }
            home.send(.playEnded(recording, outcome, current: current))
        }
    }

    /// Records from the default microphone (with `video`, the first camera too) until stopped;
    /// the clip is saved, then looked back at. A library that is not there yet is made now, as
    /// `cravey record` makes it.
    private func record(video: Bool, _ library: RecordingLibrary) -> [HomeEvent] {
        var options = RecordingOptions()
        options.holdsSound = AutoTranscription.transcriber(settings) != nil
        if video {
            // The cameras on this machine (V4L2); none is said, and nothing starts.
            guard let camera = (try? Cameras.list())?.first else {
                return [.said(HomeMessage(text: "No camera was found (/dev/video*): R records video with one. r records sound alone.", warning: false))]
            }
            options.camera = camera.path
        }
        manager?.stop()
        let made = Result { library.isCreated ? library : try RecordingLibrary(at: library.url, creating: true) }
        guard case .success(let library) = made else { return [.recordingStarting(made)] }
        let inbox = inbox, createdAt = Date()
        // As `cravey record` records (``RecordController``).
        let controller = RecordController(library: library)
        Task {
            let recorder: Recorder
            do {
                recorder = try await controller.start(options)
            } catch {
                inbox.post { $0.send(.recordingFailed(error)) }
                return
            }
            inbox.post { home in
                home.work.recorder = recorder
                home.send(.recordingStarted)
            }
            let saved: Result<Recording, any Error>
            do {
                // Saved with the title `cravey record` gives a clip without one; the look back
                // changes it.
                // With the markers made while it recorded (m), in the save's own transaction.
                saved = .success(try await RecordController.save(recorder, try RecordingMetadata(), createdAt: createdAt, markers: {
                    await withCheckedContinuation { marked in
                        inbox.post { home in marked.resume(returning: home.state.media.capture?.markers.finished ?? []) }
                    }
                }, each: { event in
                    inbox.post { home in
                        if home.work.recorder === recorder { home.send(.recorded(event, paused: recorder.isPaused)) }
                    }
                }))
            } catch {
                saved = .failure(error)
            }
            let finish: @Sendable (Result<Recording, any Error>) -> Void = { saved in
                inbox.post { home in
                    home.work.recorder = nil
                    if case .success(let clip) = saved { home.work.heldSound = (clip.id, recorder.sound) }
                    if case .success(let clip) = saved, home.state.quitting {
                        home.work.farewell.append("Saved \"\(Format.visible(clip.title))\" (\(Format.duration(clip.duration)), \(ByteCount.text(clip.fileSize))).")
                    }
                    home.send(.recordingSaved(saved))
                }
            }
            finish(saved)
        }
        return [.recordingStarting(made)]
    }

    /// Hears the words of `recording`, just saved, as `cravey record` does after a save
    /// (``AutoTranscription``): in the background, at the transcriber's low priority, from the
    /// sound as it was captured; a clip without sound is passed over, a failure said. Quitting
    /// the screen stops it, storing nothing.
    private func transcribe(_ recording: Recording, _ library: RecordingLibrary) {
        let sound = heldSound?.id == recording.id ? heldSound?.sound : nil
        heldSound = nil
        guard let transcriber = AutoTranscription.transcriber(settings) else { return }
        let inbox = inbox, language = settings.transcriptionLanguage
        Task {
            do {
                let transcript = try await library.transcripts.transcribe(recording, with: transcriber, language: language, from: sound)
                inbox.post { $0.send(.transcribed(recording, transcript)) }
            } catch let error as CraveyError where error.kind == .invalidInput {
                // No sound: no words to hear.
            } catch {
                let later = " Its words were not heard: `cravey transcribe \(recording.id.description.prefix(8))` makes them."
                inbox.post { $0.send(.failed(error, suffix: later, refresh: false)) }
            }
        }
    }

    /// Stores a marker `m` made on the player line (or its label), through the door.
    private func mark(_ id: RecordingID, _ marker: ClipMarker, _ library: RecordingLibrary) {
        let inbox = inbox
        Task {
            do {
                _ = try await onDedicatedThread(named: "cravey.mark") {
                    try library.markers.add(to: id, at: marker.seconds, label: marker.label)
                }
            } catch {
                inbox.post { $0.send(.failed(error, suffix: " The marker was not kept.", refresh: false)) }
            }
        }
    }

    /// Changes the words of the clip `asked` shows as `cravey edit` does, in one change, only
    /// while the clip is still so: a refusal changes nothing.
    private func edit(_ asked: ClipVersion, _ answers: [HomeEffect.Answer], _ library: RecordingLibrary) {
        let inbox = inbox
        Task {
            do {
                let updated = try await LookBackWork(library: library).edit(asked, answers.map { ($0.field, $0.text) })
                let trimmed = answers.filter { answer in
                    let text = answer.text.trimmingCharacters(in: .whitespacesAndNewlines)
                    return answer.field < 2 && !text.isEmpty && text != answer.text
                }.map { $0.field == 0 ? "title" : "notes" }
                inbox.post { $0.send(.edited(updated, trimmed: trimmed)) }
            } catch {
                inbox.post { $0.send(.failed(error, suffix: " Nothing was changed.", refresh: true)) }
            }
        }
    }

    /// Deletes the clip `asked` shows (`d`, or the look back's discard) through the door: its
    /// file, thumbnail and row, only while it is still so.
    private func remove(_ asked: ClipVersion, _ how: HomeMode.Confirmed, _ library: RecordingLibrary) {
        let inbox = inbox
        let (said, kept) = how == .discard ? ("Discarded", "The clip was kept") : ("Deleted", "It was kept")
        Task {
            do {
                let deleted = try await LookBackWork(library: library).discard(asked)
                inbox.post { $0.send(.removed(deleted, said: said)) }
            } catch {
                inbox.post { $0.send(.failed(error, suffix: " \(kept).", refresh: false)) }
            }
        }
    }

    /// `x` (or the look back's `a`): finds the silence before the first sound and after the last
    /// of the clip `asked` shows, from its stored waveform as `cravey trim --auto` finds it.
    private func proposeCut(_ asked: ClipVersion, lookBack: Bool, _ library: RecordingLibrary) {
        let inbox = inbox, recording = asked.recording
        Task {
            do {
                let proposal = try await LookBackWork(library: library).propose(recording)
                inbox.post { $0.send(.cutProposed(recording, asked, proposal, lookBack: lookBack)) }
            } catch {
                inbox.post { $0.send(.failed(error, suffix: " Nothing was cut.", refresh: true)) }
            }
        }
    }

    /// Cuts the clip `asked` shows to `start`-`end` seconds through the door: one durable
    /// replacement that keeps its id, words and plays, made only while the clip is still so.
    private func cut(_ asked: ClipVersion, from start: Double, to end: Double, _ library: RecordingLibrary) {
        let inbox = inbox, recording = asked.recording
        Task {
            do {
                let trimmed = try await LookBackWork(library: library).cut(asked, from: start, to: end)
                inbox.post { $0.send(.cut(from: recording, to: trimmed)) }
            } catch {
                inbox.post { $0.send(.failed(error, suffix: " Nothing was cut.", refresh: true)) }
            }
        }
    }

    /// The look back's `c`: cleans the noise of the clip `asked` shows beside it (as `cravey
    /// clean` does), kept aside to be compared (``HomeLookBack``).
    private func clean(_ asked: ClipVersion, _ library: RecordingLibrary) {
        let inbox = inbox
        Task {
            do {
                let cleanUp = try await LookBackWork(library: library).clean(asked)
                inbox.post { home in
                    home.work.cleanUp = cleanUp
                    home.send(.noiseCleaned(figures: CleanListening.figures(cleanUp)))
                }
            } catch {
                inbox.post { $0.send(.failed(error, suffix: " Nothing was changed.", refresh: false)) }
            }
        }
    }

    /// Plays the clean-up being compared (`cleaned`), or its clip as it was, from `from` on the
    /// player line, as `cravey clean` plays them (``CleanListening``): never counted.
    private func hearCleanUp(cleaned: Bool, from: Double, _ library: RecordingLibrary) {
        guard let cleanUp else { return }
        let inbox = inbox, options = CleanListening.listening(sink: nil, from: from, loudness: settings.loudness)
        Task {
            let manager: PlaybackManager
            do {
                manager = cleaned ? try await library.shaping.play(cleanUp, options: options)
                    : try await library.play(cleanUp.recording, options: options)
            } catch {
                inbox.post { $0.send(.playFailed(error)) }
                return
            }
            HomeWork.started(manager, cleanUp.recording, counted: false, inbox: inbox)
            await HomeWork.follow(manager, cleanUp.recording, desktop: nil, inbox: inbox)
        }
    }

    /// The reminders changed and read again (``ReminderWork``), off the screen's thread: the
    /// writers' lock and systemctl may wait.
    private func reminders(_ effect: HomeEffect, _ library: RecordingLibrary) {
        let inbox = inbox, work = ReminderWork(library: library, settings: settings)
        Task {
            do {
                let done = try await onDedicatedThread(named: "cravey.remind") { try work.perform(effect) }
                if let (listing, said) = done { inbox.post { $0.send(.remindersRead(listing, said: said)) } }
            } catch {
                inbox.post { $0.send(.failed(error, suffix: effect == .readReminders ? "" : " Nothing was changed.", refresh: false)) }
            }
        }
    }

    /// Sends and merges (``SyncWork``), off the screen's thread: the folder's files and the
    /// writers' lock may wait.
    private func sync(_ library: RecordingLibrary) {
        let inbox = inbox, work = SyncWork(library: library)
        Task {
            let outcome = (try? await onDedicatedThread(named: "cravey.sync") { work.perform() }) ?? HomeSync.failure(CancellationError())
            inbox.post { $0.send(.synced(outcome, at: Date())) }
        }
    }

    /// Something lands in the sync folder once ``SyncInbox/settle`` seconds have passed: a file
    /// still being written into the inbox changes no name once whole, so it is looked at again
    /// once it has been still long enough. The one timer of the screen's sync, only while such a
    /// file waits, and one at a time.
    private func syncLater() {
        guard !syncsLater else { return }
        syncsLater = true
        let inbox = inbox
        Task {
            try? await Task.sleep(for: .seconds(SyncInbox.settle))
            inbox.post { home in
                home.work.syncsLater = false
                home.send(.syncLanded)
            }
        }
    }

    /// Keeps the clean-up compared in place of its clip (one durable replacement, as a cut), or
    /// discards it.
    private func settleCleanUp(keep: Bool, _ library: RecordingLibrary) {
        guard let cleanUp else { return }
        self.cleanUp = nil
        guard keep else { return library.shaping.discard(cleanUp) }
        let inbox = inbox
        Task {
            do {
                let kept = try await LookBackWork(library: library).keep(cleanUp)
                inbox.post { $0.send(.cleanUpKept(kept)) }
            } catch {
                inbox.post { $0.send(.failed(error, suffix: " Nothing was changed.", refresh: true)) }
            }
        }
    }
}
