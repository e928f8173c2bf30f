import Foundation

extension RecordingLibrary {
    /// Hears the words said in `recording` with the optional transcriber (``Transcriber``,
    /// `scripts/install --transcribe`) and stores them beside it, in place of any transcript it
    /// had (``transcript(of:)`` reads them). Returns them. About a quarter of the clip's length in
    /// CPU time (a sixth of it on two idle cores), and a second to load the model.
    ///
    /// The audio is decoded by cravey's own FFmpeg layer and handed to the helper through a
    /// pipe, never a file; its words are stored in one atomic write under the writers' lock, only
    /// while the clip is there with the media they were heard from. Cancelling the task stops
    /// the helper; nothing is stored then, as after a kill. `language` (a code of
    /// ``Transcript/languages``) is the one to hear; nil lets the transcriber tell, and the
    /// transcript keeps the one it heard. `progress` is called with the seconds of sound heard so far.
    ///
    /// Throws `CancellationError`, and ``CraveyError``: `.unavailable` when the transcriber is
    /// not installed or its model is missing or altered; `.invalidInput` for a clip without
    /// sound; `.notFound` for a missing file or a clip deleted meanwhile; `.busy` when its media
    /// was changed meanwhile (a trim); `.undecodableMedia`, `.cannotWrite`. Nothing changes then.
    @discardableResult
    package func transcribe(_ recording: Recording, language: String? = nil,
                            progress: @escaping @Sendable (Double) -> Void = { _ in }) async throws -> Transcript {
        try await transcribe(recording, with: try Transcriber.installed(), language: language, progress: progress)
    }

    /// ``transcribe(_:language:progress:)`` with the helper `transcriber` (a test's, or one found elsewhere).
    @discardableResult
    package func transcribe(_ recording: Recording, with transcriber: Transcriber, language: String? = nil,
                            progress: @escaping @Sendable (Double) -> Void = { _ in }) async throws -> Transcript {
        let heard = version(of: recording)
        let media = store.media(try mediaFile(of: recording))
        let run = Transcriber.Run()
        let transcript = try await withTaskCancellationHandler {
            try await onDedicatedThread(named: "cravey.transcribe") {
                var audible = true
                let transcript = try transcriber.transcribe(run, language: language, progress: progress) { write in
                    audible = try SpeechAudio.decode(media, write)
                }
                guard audible else {
                    throw CraveyError(.invalidInput, "\"\(recording.title)\" has no sound, so it has no words to hear.")
                }
                return transcript
            }
        } onCancel: {
            run.cancel()
        }
        try Task.checkCancellation()
        try await onDedicatedThread(named: "cravey.transcribe") { [self] in
            try store.write { tx in
                guard let current = try tx.repository.recording(recording.id) else {
                    throw CraveyError(.notFound, "\"\(recording.title)\" is no longer in the library; its words were not stored.")
                }
                guard version(of: current).media == heard.media else {
                    throw CraveyError(.busy, "\"\(current.title)\" was changed by another cravey while its words were heard; nothing was stored. Try again.")
                }
                try tx.store(transcript.data, as: .transcript, of: ClipFiles(current))
            }
        }
        return transcript
    }
}
