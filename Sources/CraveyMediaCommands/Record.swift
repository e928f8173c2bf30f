import ArgumentParser
import CraveyCommands
import CraveyKit
import CraveyTerminal
import Foundation

/// Runs `cravey record` (its command line is ``RecordOptions``, which `cravey` shows in its help).
struct Record: AsyncSettingsReading {
    static let configuration = RecordOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: RecordOptions

    func run(with settings: Settings) async throws {
        let metadata = try command.metadata.metadata(with: settings)
        let library = try command.options.open(creating: true)
        var toggle: RecordToggle?
        if command.toggle {
            let file = try RecordToggle(folder: library.url)
            guard try file.claim() else {
                try await onDedicatedThread(named: "cravey.toggle") { try file.stopOther() }
                return Terminal.diagnostic("Stopped the recording that was running; it is saved.")
            }
            toggle = file
        }
        // A stop that comes before the recorder exists is kept, and carried out once it does.
        let recorderOrStop = Locked<(recorder: Recorder?, stopped: Bool)>((nil, false))
        let signals = StopOnSignals {
            recorderOrStop.withLock { state in
                state.stopped = true
                return state.recorder
            }?.stop()
        }
        defer { signals.cancel() }
        var options = RecordingOptions(source: command.device, maxDuration: command.seconds)
        options.holdsSound = AutoTranscription.transcriber(settings.app) != nil
        if command.video {
            let size = command.pictureSize
            options.camera = command.cameraDevice
            (options.width, options.height, options.frameRate) = (size.width, size.height, command.frameRate)
        }
        let createdAt = Date()
        let recorder = try await LevelMeterView.start(options, in: library)
        if recorderOrStop.withLock({ state in
            state.recorder = recorder
            return state.stopped
        }) {
            recorder.stop()
        }
        let notice = toggle == nil ? nil : await DesktopNotification.show("Recording")
        // `kill -USR1 PID` pauses and resumes, for scripts and desktop shortcuts.
        let pauses = OnSignals([SIGUSR1]) { recorder.isPaused ? recorder.resume() : recorder.pause() }
        defer { pauses.cancel() }
        // Space pauses and resumes on a terminal; Ctrl-C still stops (the terminal sends SIGINT).
        let onTerminal = toggle == nil && Terminal.isTerminal(0) && Terminal.isTerminal(2)
        let view = LevelMeterView(seconds: command.seconds, video: command.video ? options : nil, spaceToPause: onTerminal)
        // m marks the moment (its label typed after); the markers are saved with the clip.
        let keys = onTerminal ? KeyReader(redraw: { [drawn = view.drawn] in Terminal.diagnostic(drawn.withLock { $0 }, terminator: "") }, handling: { key in
            view.handle(key) { recorder.isPaused ? recorder.resume() : recorder.pause() }
        }) : nil
        defer { keys?.restore() }
        let recording = try await view.save(recorder, metadata, createdAt: createdAt)
        keys?.restore()
        pauses.cancel()
        if toggle != nil { _ = await DesktopNotification.show("Saved a clip (\(Format.duration(recording.duration))).", replacing: notice) }
        Terminal.diagnostic("Saved \"\(Format.visible(recording.title))\" (\(Format.duration(recording.duration)), \(ByteCount.text(recording.fileSize))).")
        // Saved: the next toggle records again, while this process hears the clip's words.
        toggle?.release()
        let app = settings.app
        // Saved durably before the words are heard and before the look back: whatever happens
        // there, the clip is kept. The look back comes after the words, to propose a title from them.
        guard onTerminal && !command.noPreview else {
            try Terminal.printSaved(recording, json: command.json)
            await AutoTranscription.follow(recording, in: library, settings: app, from: recorder.sound, signals: signals)
            return
        }
        await AutoTranscription.follow(recording, in: library, settings: app, from: recorder.sound, signals: signals)
        var preview = Preview(library: library, recording: recording, sink: nil, loudness: app.loudness, signals: signals)
        guard let kept = await preview.run() else { return }
        try Terminal.printSaved(kept, json: command.json)
    }
}
