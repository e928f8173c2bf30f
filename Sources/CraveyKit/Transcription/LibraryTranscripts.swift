import Foundation

/// A clip's words: heard by the optional transcriber (``Transcriber``, `scripts/install
/// --transcribe`), stored beside the clip, read back, and corrected by a person. A capability
/// reached from the door (``RecordingLibrary/transcripts``).
package struct LibraryTranscripts: Sendable {
    package let library: RecordingLibrary
    private var store: LibraryStore { library.store }

    /// The words said in `recording`, with their times, as ``transcribe(_:language:progress:)``
    /// (`cravey transcribe`) stored them; nil when it has no transcript (none made yet, or
    /// dropped by a noise clean-up), or the file does not read as one.
    package func transcript(of recording: Recording) -> Transcript? {
        store.contents(of: ClipFiles(recording).file(.transcript)!, atMost: Transcript.largestFile).flatMap(Transcript.init(data:))
    }

    /// Hears the words said in `recording` with the optional transcriber (``Transcriber``,
    /// `scripts/install --transcribe`) and stores them beside it, in place of any transcript it
    /// had (``transcript(of:)`` reads them). The library's own words (``LibraryVocabulary``) are
    /// listened for, and their heard-as forms written as them. Returns them. About a quarter of the clip's length in
    /// CPU time (a sixth of it on two idle cores), and a second to load the model.
    ///
    /// The audio is decoded by cravey's own FFmpeg layer and handed to the helper through a
    /// pipe, never a file; its words are stored in one atomic write under the writers' lock, only
    /// while the clip is there with the media they were heard from. Cancelling the task stops
    /// the helper; nothing is stored then, as after a kill. `language` (a code of
    /// ``Transcript/languages``) is the one to hear; nil lets the transcriber tell, and the
    /// transcript keeps the one it heard. `progress` is called with the seconds of sound heard
    /// so far (a finite number from 0 on; any other the transcriber says is left out).
    ///
    /// Throws `CancellationError`, and ``CraveyError``: `.unavailable` when the transcriber is
    /// not installed or its model is missing or altered; `.invalidInput` for a clip without
    /// sound (no audio stream, or only digital silence); `.notFound` for a missing file or a
    /// clip deleted meanwhile; `.busy` when its media was changed meanwhile (a trim);
    /// `.undecodableMedia`, `.cannotWrite`. Nothing changes then. A word heard from the clip's
    /// end on is dropped, and one still said there ends there (``Transcript/within(_:)``).
    @discardableResult
    package func transcribe(_ recording: Recording, language: String? = nil,
                            progress: @escaping @Sendable (Double) -> Void = { _ in }) async throws -> Transcript {
        try await transcribe(recording, with: try Transcriber.installed(), language: language, progress: progress)
    }

    /// The smallest sample that is sound, not digital silence: one step of 16 bits.
    static let quietestSound: Float = 1.0 / 32_768

    /// How far a held sound's length may be from its clip's: an encoder's padding, not another clip.
    static let heldSoundTolerance = 0.1

    /// ``transcribe(_:language:progress:)`` with the helper `transcriber` (a test's, or one found
    /// elsewhere), hearing `sound` when it is given and whole: the sound `record` or `import` held
    /// before it was encoded (``HeldSound``), which the transcriber hears better than the AAC copy.
    /// A sound that is not whole, or not as long as the clip (within a tenth of a second), is
    /// passed over for the media.
    @discardableResult
    package func transcribe(_ recording: Recording, with transcriber: Transcriber, language: String? = nil, from sound: HeldSound? = nil,
                            progress: @escaping @Sendable (Double) -> Void = { _ in }) async throws -> Transcript {
        let heard = library.version(of: recording)
        let media = store.media(try store.mediaFile(of: recording))
        // The person's own words: listened for, and their heard-as forms written as them. A
        // database that cannot give them (a library a newer cravey wrote differently) hears without.
        let vocabulary = (try? library.vocabulary.words()) ?? []
        let held = sound?.samples.flatMap { samples in
            abs(Double(samples.count) / Double(SpeechAudio.sampleRate) - recording.duration) <= Self.heldSoundTolerance ? samples : nil
        }
        let run = Transcriber.Run()
        let transcript = try await withTaskCancellationHandler {
            try await onDedicatedThread(named: "cravey.transcribe") {
                // Sound: an audio stream, with a sample as loud as one step of 16 bits (digital
                // silence is all zeros, and the transcriber would make up words for it).
                var audible = false
                // Only a time a clip can have reaches `progress` (a transcriber may say -inf or nan).
                let told: @Sendable (Double) -> Void = { seconds in if seconds.isFinite && seconds >= 0 { progress(seconds) } }
                let transcript = try transcriber.transcribe(run, language: language, hotwords: vocabulary.map(\.word), progress: told) { write in
                    func hear(_ samples: [Float]) throws {
                        if !audible { audible = samples.contains { abs($0) >= Self.quietestSound } }
                        try write(samples)
                    }
                    if let held {
                        // A second at a time, as a decoding hands them: a cancel is seen between.
                        for start in stride(from: 0, to: held.count, by: SpeechAudio.sampleRate) {
                            try hear(Array(held[start..<min(start + SpeechAudio.sampleRate, held.count)]))
                        }
                    } else {
                        _ = try SpeechAudio.decode(media, hear)
                    }
                }
                guard audible else {
                    throw CraveyError(.invalidInput, "\"\(recording.title)\" has no sound (no audio, or only silence), so it has no words to hear.")
                }
                // A word heard past the sound's end is not the clip's: dropped, or ended there.
                let fitted = transcript.writing(vocabulary).within(recording.duration)
                guard fitted.isStorable else {
                    throw CraveyError(.other, "The transcriber's words for \"\(recording.title)\" make more than the \(Transcript.largestFile >> 20) MiB a transcript may have; nothing was stored.")
                }
                return fitted
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
                guard library.version(of: current).media == heard.media else {
                    throw CraveyError(.busy, "\"\(current.title)\" was changed by another cravey while its words were heard; nothing was stored. Try again.")
                }
                try tx.store(transcript.data, as: .transcript, of: ClipFiles(current))
            }
        }
        return transcript
    }

    /// The most bytes a corrected file may hold (or twice what it was given, if more): 1 MiB,
    /// the words of days of speech.
    package static let largestCorrection = 1 << 20

    /// Has a person correct the words of `recording`, as `cravey transcript --edit` does: its
    /// sentences, one a line, are written inside the library (``ClipFiles/Part/correction``, mode
    /// 0600), `edit` is given the file's path (a person's editor runs on it) and returns whether
    /// it ended well; the lines it left are stored as the transcript (``Transcript/corrected(_:)``).
    /// The file is removed whatever happens. Returns the words stored; nil when nothing changed:
    /// `edit` returned false, the file was left empty, or no line was changed.
    ///
    /// Throws ``CraveyError``: `.notFound` when the clip has no transcript, or is gone;
    /// `.invalidInput` when the lines are no longer one a sentence, or hold a control
    /// character, or the file or the transcript it makes is too large (``largestCorrection``,
    /// ``Transcript/isStorable``); `.busy` when the clip or its words were changed meanwhile
    /// (another cravey, a trim, a transcription); `.cannotWrite`. Nothing is stored then.
    package func correct(_ recording: Recording, edit: (URL) throws -> Bool) throws -> Transcript? {
        let asked = library.version(of: recording)
        guard let heard = transcript(of: recording), !heard.words.isEmpty, let file = ClipFiles(recording).file(.correction),
              let files = store.files else {
            throw CraveyError(.notFound, "\"\(recording.title)\" has no words to correct.")
        }
        let given = Data(heard.correctable.utf8)
        // Written afresh (never what a cut-off edit left) and held locked while the editor has
        // it, and the words too (an editor that saves by renaming makes a file no lock is on): a
        // repair takes only one no process holds (a kill's leftover).
        let words = ClipFiles(recording).file(.transcript)!
        _ = store.claim(words)
        defer { store.release(words) }
        try files.writeAtomically(file, doing: "write the words to correct") { try $0.write(given) }
        defer { store.remove(file) }
        _ = store.claim(file)
        guard try edit(files.url(of: file)) else { return nil }
        // Read whole only when it is about as large as what was given: a longer text would make
        // words no reader takes, and time and memory with them.
        let largest = max(Self.largestCorrection, given.count * 2)
        if let size = store.status(of: file).size, size > largest {
            throw CraveyError(.invalidInput, "The corrected words of \"\(recording.title)\" are \(size) bytes, more than the \(largest) a correction of these words may have: correct the words, do not add a text. Nothing was changed.")
        }
        guard let text = store.contents(of: file, atMost: largest).map({ String(decoding: $0, as: UTF8.self) }),
              !text.allSatisfy(\.isWhitespace) else { return nil }
        let lines = Transcript.lines(of: text)
        guard let corrected = heard.corrected(lines) else {
            throw CraveyError(.invalidInput, "The corrected words of \"\(recording.title)\" are \(lines.count) line\(lines.count == 1 ? "" : "s") for \(heard.sentences.count) sentence\(heard.sentences.count == 1 ? "" : "s") (or hold a control character): keep one line a sentence (a blank line drops one). Nothing was changed.")
        }
        guard corrected != heard else { return nil }
        guard corrected.isStorable else {
            throw CraveyError(.invalidInput, "The corrected words of \"\(recording.title)\" would make a transcript of more than \(Transcript.largestFile >> 20) MiB, more than cravey reads back: correct the words, do not add a text. Nothing was changed.")
        }
        try store.write { tx in
            let current = try tx.expect(asked)
            guard transcript(of: current) == heard else {
                throw CraveyError(.busy, "The words of \"\(current.title)\" were changed by another cravey meanwhile; nothing was changed. Look at them again, then try again.")
            }
            _ = try tx.store(corrected.data, as: .transcript, of: ClipFiles(current))
        }
        return corrected
    }
}
