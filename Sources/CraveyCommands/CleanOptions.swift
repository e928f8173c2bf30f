import ArgumentParser
import CraveyCore

/// `cravey clean`'s command line, shared by `cravey` (its help) and `cravey-media` (whose
/// `Clean` runs it). See ``Cravey``.
package struct CleanOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Take the steady noise (a fan, traffic, hiss) out of a clip, then compare before keeping.",
        discussion: """
            Learns the noise from the clip itself, from its quietest half second (found in its \
            stored waveform), and removes it with FFmpeg's filters: a high-pass at 80 Hz, under \
            the voice, then `afftdn` with its noise profile sampled over that stretch and its \
            noise floor set 10 dB above the stretch's level (at most 6 dB under the clip's \
            loudness, so a voice is never taken for noise). The sound is re-encoded (AAC, as an \
            import); a video's pictures are copied.

            It prints the noise floor before and after (RMS over that stretch, dBFS) and how \
            much the speech level (the clip's loudness) changed. On a terminal it then offers \
            to listen: p plays the cleaned clip, a switches between before (A) and after (B) at \
            the same moment, both at the level cravey plays at; y keeps it, n (or Enter) keeps \
            the clip as it was. --yes keeps it without asking (needed when stdin is not a \
            terminal); --dry-run prints the figures and changes nothing.

            Kept, the cleaned clip replaces the old one in one step, as `trim` replaces it (its \
            id, words, date and plays stay; crash and power cut leave one or the other). A clip \
            without sound, or whose quiet parts are digital silence (no noise to learn), exits \
            64, an unknown id 66, audio that does not decode 65, another cravey changing the \
            clip meanwhile 75.
            """)

    @OptionGroup package var options: LibraryOptions
    @Argument(help: "The recording's id, or any unique prefix of it.", completion: Completion.recordingIDs) package var id: String
    @Option(help: ArgumentHelp("Listen on this PulseAudio sink (default: the default sink).", valueName: "sink"))
    package var device: String?
    @Flag(help: "Print the figures and change nothing.") package var dryRun = false
    @Flag(help: "Keep the cleaned clip without asking (needed when stdin is not a terminal).") package var yes = false
    @Flag(help: "Print the figures (and the recording, when kept) as JSON.") package var json = false

    package init() {}

    package func validate() throws {
        if dryRun && yes {
            throw ValidationError("--dry-run changes nothing; --yes keeps the cleaned clip. Give one of them.")
        }
    }
}
