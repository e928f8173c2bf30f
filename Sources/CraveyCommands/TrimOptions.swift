import ArgumentParser
import CraveyCore

/// `cravey trim`'s command line: its help, options and validation, shared by `cravey` (which
/// lists it in its help) and `cravey-media` (whose `Trim` runs it). See ``Cravey``.
package struct TrimOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "trim",
        abstract: "Cut a clip to the part worth keeping: the fumble before it, the reach after it.",
        discussion: """
            Keeps the part from --start to --end (seconds, or m:ss.fff; the clip's start and \
            end by default) and deletes the rest. --auto proposes both from the clip's stored \
            waveform alone, without decoding it: from 150 ms before its first sound to 150 ms \
            after its last. A sound is 50 ms of 10 ms peaks within 100 ms reaching the \
            threshold: 12 dB above the clip's own noise floor (the level a tenth of its peaks \
            stay under), never below -70 dBFS, and at most halfway (in dB) from the floor to its \
            loudest peak: a fan or traffic within 24 dB of the voice puts it between the two. \
            So a lone click (a key, under 50 ms) is not the first sound, and the threshold \
            follows a fan or traffic up, always above it. A clip whose loudest peak stands less \
            than 6 dB over its floor is all sound: nothing to cut. --start or --end with --auto \
            replace that side of the proposal.

            A time is seconds (12, 12.5) or m:ss.fff (1:02.5; h:mm:ss.fff too): digits, one \
            decimal point, no sign or exponent. A --start at or past the clip's end, an --end \
            past it, a span shorter than 0.1 s or the whole clip is refused (64) by a --dry-run \
            as by the cut itself.

            It prints what it would cut, then asks "The cut parts cannot be recovered." (--yes \
            when stdin is not a terminal; --dry-run prints and changes nothing, on stdout, as \
            JSON with --json). The cut is exact to the sample and re-encodes nothing (where the \
            AAC coding used noise substitution, those bands decode as noise does): the frames \
            kept are copied as they were and the MP4's edit list says where the clip starts and \
            ends (at most 21 ms of cut sound on each side stays in the file, unplayed: the \
            decoder's preroll; a video keeps, unshown, the pictures from the keyframe before \
            the start). The clip keeps its id, title, notes, purpose, creation date and plays; \
            its duration, size, loudness, waveform and thumbnail are remade, and its markers \
            move with the sound (those in the part cut go; one at an edge stays); the old file \
            is deleted.

            The replacement is one step: a crash or a power cut at any moment leaves the whole \
            old clip or the whole new one once `cravey doctor --repair` has run (cut off in one \
            window of about a millisecond, the old clip comes back with the new file's size in \
            its entry, which a second repair fixes). A span outside \
            the clip, shorter than 0.1 s or the whole clip exits 64, an unknown id or a missing \
            file 66, another cravey changing the same clip meanwhile 75 (nothing changed).
            """)

    @OptionGroup package var options: LibraryOptions
    @Argument(help: "The recording's id, or any unique prefix of it.", completion: Completion.recordingIDs) package var id: String
    @Option(help: ArgumentHelp("Keep from here: seconds, or m:ss.fff (default: the start, or --auto's).", valueName: "time"))
    package var start: ClipTime?
    @Option(help: ArgumentHelp("Keep up to here: seconds, or m:ss.fff (default: the end, or --auto's).", valueName: "time"))
    package var end: ClipTime?
    @Flag(help: "Propose the cut from the clip's waveform: its silence before the first sound and after the last, with 150 ms kept.")
    package var auto = false
    @Flag(help: "Print what would be cut and change nothing.") package var dryRun = false
    @Flag(help: "Do not ask for confirmation (needed when stdin is not a terminal).") package var yes = false
    @Flag(help: "Print the trimmed recording (with --dry-run: the proposed cut) as JSON.") package var json = false

    package init() {}

    package func validate() throws {
        if start == nil && end == nil && !auto {
            throw ValidationError("Nothing to cut: give --start, --end or --auto.")
        }
        if let start, let end, end.seconds <= start.seconds {
            throw ValidationError("--end (\(ClipTime.text(end.seconds))) must come after --start (\(ClipTime.text(start.seconds))).")
        }
    }
}
