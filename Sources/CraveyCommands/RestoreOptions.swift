import ArgumentParser
import CraveyCore
import Foundation

/// `cravey restore`: its command line, which `cravey-media` runs (its clips' media are decoded before
/// any is saved).
package struct RestoreOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Add the clips of a backup that the library does not have.",
        discussion: """
            Every byte of the backup is checked first against its manifest; a backup that is \
            damaged, cut short, altered or not cravey's restores nothing (exit 65) and makes no \
            library. Every value of every clip is checked too (dates, lengths, words, paths, \
            plays, a play count that is the number of its plays, a loudness a measurement \
            gives): one no clip has refuses the backup whole (exit 65, naming the clip and the \
            field). Then each clip the library lacks (by id) is written and its media read to \
            its end (its sound decoded, its pictures' packets read for their structure) and \
            measured against its record (media with a packet that does not decode, that stops \
            early or decodes shorter than it says, or is not as long as its record says, \
            refuses the backup whole: exit 65, nothing changed); then they are \
            all saved at once, durably as a recording is, with their words, dates, plays and \
            thumbnails; clips the library has are left as they are, and so are its own words \
            (`cravey words`: the backup's are added to them). A \
            clip deleted since the backup comes back. The backup's reminders the library lacks \
            (the same time, days and clip) are added in the same step, with new numbers; \
            `cravey remind resume` then makes their timers. Running it twice adds nothing the second \
            time. A backup made before clips kept waveforms restores as it is (`cravey doctor \
            --repair` then makes them).

            An encrypted backup (`cravey backup --encrypt`, or a cravey tar encrypted with \
            `age -p`) is recognised by its first bytes, and its passphrase asked for at the \
            terminal, or read from --passphrase-fd N or the file CRAVEY_PASSPHRASE_FILE names. \
            Every 64 KiB chunk is verified before its bytes are used: a wrong passphrase, or a \
            single byte changed anywhere, restores nothing (exit 65).
            """)

    @OptionGroup package var options: LibraryOptions
    @Argument(help: ArgumentHelp("A file `cravey backup` wrote.", valueName: "backup"), completion: .file(extensions: ["tar", "age"])) package var file: String
    @Option(help: ArgumentHelp("For an encrypted backup: read the passphrase from this open file descriptor (its first line) instead of the terminal.",
                               valueName: "n"))
    package var passphraseFd: Int32?
    @Flag(help: "Print what was restored as JSON.") package var json = false

    package init() {}
}

