import CraveyKit
import Foundation

/// The transcript that follows a new clip (the `transcribe.auto` setting, on by default): once
/// `cravey record`, `cravey import` or the home screen has saved a clip, and only then, its words
/// are heard, in the same process, when the optional transcriber is installed.
///
/// In the same process rather than detached: the clip is saved durably before it starts, so
/// nothing it does can delay or endanger the save; when the command ends its transcript is there
/// (a script that records and then asks for the words finds them); one transcriber runs at a time
/// (a detached helper per imported clip would run several models of 340 MB at once); and a
/// person sees its progress and skips it with Ctrl-C. Skipped, killed or failed, it stores nothing
/// (the words are written in one atomic step at the end) and the clip stays as saved:
/// `cravey transcribe ID` makes the transcript later.
package enum AutoTranscription {
    /// The transcriber new clips are heard by: the installed one while `transcribe.auto` is on
    /// in `settings`; nil otherwise, saying nothing (cravey without the transcriber works as before).
    package static func transcriber(_ settings: AppSettings) -> Transcriber? {
        guard settings.transcribesNewClips else { return nil }
        return try? Transcriber.installed()
    }

    /// Hears the words of `recording`, just saved, with ``transcriber(_:)``, in the language
    /// `settings` name, from `sound` (what `record` or `import` held before encoding it) when it
    /// is whole, else from its media, and stores them with it; on a terminal with its progress on stderr, which
    /// `signals` (Ctrl-C) turns into a skip. Never throws: a clip without sound is passed over
    /// silently, a failure or a skip is said on stderr with how to make the words later. Returns
    /// the words, nil when none were stored.
    @discardableResult
    package static func follow(_ recording: Recording, in library: RecordingLibrary, settings: AppSettings,
                               from sound: HeldSound? = nil, signals: OnSignals) async -> Transcript? {
        guard let transcriber = transcriber(settings) else { return nil }
        let duration = recording.duration
        let redraws = Terminal.canRedraw
        let progress: @Sendable (Double) -> Void = { seconds in
            guard redraws, let percent = Format.percent(heard: seconds, of: duration) else { return }
            Terminal.diagnostic("\r\u{1B}[KHearing the words: \(percent)% (Ctrl-C skips)", terminator: "")
        }
        progress(0)
        let language = settings.transcriptionLanguage
        let work = Task { try await library.transcripts.transcribe(recording, with: transcriber, language: language, from: sound, progress: progress) }
        signals.handle { work.cancel() }
        let outcome = await work.result
        if redraws { Terminal.diagnostic("\r\u{1B}[K", terminator: "") }
        let later = "`cravey transcribe \(recording.id.description.prefix(8))` makes them later."
        switch outcome {
        case .success(let transcript):
            return transcript
        case .failure(is CancellationError):
            Terminal.diagnostic("Skipped hearing the words; \(later)")
        case .failure(let error as CraveyError) where error.kind == .invalidInput:
            break  // no sound: no words to hear, nothing to say
        case .failure(let error):
            let said = (error as? CraveyError).map(Messages.text) ?? "\(error)"
            Terminal.diagnostic("cravey: warning: the words were not heard (the clip is saved): \(said) \(later)")
        }
        return nil
    }
}
