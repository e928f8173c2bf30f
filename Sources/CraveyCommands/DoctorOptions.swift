import ArgumentParser
import CraveyCore

/// `cravey doctor`'s command line: its help, options and validation, shared by `cravey` (which
/// lists it in its help) and `cravey-media` (whose `Doctor` command runs it). See ``Cravey``.
package struct DoctorOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check that the library's entries and files agree; --repair fixes what it finds.",
        discussion: """
            First checks the database itself (SQLite's integrity_check): a damaged one is \
            reported (exit 1) with the way out, and --repair then changes nothing. Then it finds \
            entries whose file is missing, files with no entry (a recording cut off by a crash, \
            for example), thumbnails, waveforms and clip records with no entry, size mismatches, \
            interrupted deletions and imports, the file an interrupted `transcript --edit` left, \
            a clip's words file that no reader takes or that holds a word said more than a \
            second past the clip's end, and stored paths (media or thumbnail) that point outside the library. Every clip's media is read to its end, its sound decoded and \
            every packet of its pictures walked: one that stops early, holds a packet that does \
            not decode, or decodes shorter or longer than it says (by more than 50 ms or two \
            frames) is "damaged media". That reading costs about 0.3 s of CPU for 10 minutes of \
            sound, 0.4 s for 10 minutes of 720p video. A \
            recording or import still in progress in another process is left alone.

            --repair registers playable files that have no entry with the title, notes, purpose, \
            date and plays of the clip's own record (Recordings/<type>_<id>.json), or as \
            "Recovered <date>" when it has none; it removes entries whose media is gone, fixes \
            sizes, writes missing clip records, removes orphan thumbnails, waveforms and \
            records and deletes what an interrupted import or edit left; it cuts words said \
            past a clip's end to its length, and deletes a words file no reader takes \
            (`cravey transcribe` hears them again). Unplayable fragments are \
            deleted only with --delete-unplayable, except a recording cut off before its first \
            sound (a fragment holding not one packet), which holds nothing and goes. A file in \
            Recordings/ that cravey did not name (a WAV put there, a name that is not UTF-8, a \
            .m4a whose bytes are no MP4) is never deleted, renamed or registered: it is \
            reported as "not made by cravey", to move away or `cravey import`. Damaged media is \
            not repaired: what decodes still plays; `cravey delete` the clip, then `cravey \
            restore` a backup that holds it whole.

            It also counts clips whose loudness is not measured yet, or whose waveform is not \
            made yet (which is no problem: playing one measures it, `cravey waveform` makes it); \
            --repair measures them, both in one decoding.

            A damaged database: move library.sqlite and its -wal and -shm files aside, as \
            doctor prints, then `cravey doctor --repair` registers every clip again from its \
            own record, with its title, notes, purpose, date, plays and loudness as of the last \
            command that succeeded. An unpacked backup (`tar -xf FILE`) can be opened the same \
            way: `cravey --library cravey-backup doctor --repair`.

            Exits 0 when the library is healthy (or was repaired), 1 when problems remain (and \
            says what it still finds).
            """)

    @OptionGroup package var options: LibraryOptions
    @Flag(help: "Repair what was found.") package var repair = false
    @Flag(help: "With --repair, also delete orphan files that cannot be played.") package var deleteUnplayable = false
    @Flag(help: "Print the report as JSON.") package var json = false

    package init() {}

    package func validate() throws {
        if deleteUnplayable && !repair { throw ValidationError("--delete-unplayable goes with --repair.") }
    }
}
