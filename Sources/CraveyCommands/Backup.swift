import ArgumentParser
import CraveyCore
import Foundation

struct Backup: SettingsReading {
    static let configuration = CommandConfiguration(
        abstract: "Write every clip, with its words, date and plays, to one file.",
        discussion: """
            The file is a tar archive (`tar -tf FILE` lists it), written in one step, mode \
            0600: the library's Recordings/ folder under cravey-backup/, each clip's media, \
            thumbnail, waveform and record (its title, notes, purpose, date, plays and loudness, \
            as JSON), the library's reminders when it has any (cravey-backup/reminders.json, as \
            `cravey remind --json` prints them), your own words (cravey-backup/words.json, \
            `cravey words`) when you keep any, then cravey-backup/manifest.json with the size \
            and SHA-256 of every file. \
            `cravey restore FILE` brings the clips back into any library. Recording, playing \
            and deleting may go on while it is written; a terminal shows its progress. A backup \
            can also be unpacked by hand (`tar -xf FILE`) and opened as a library: \
            `cravey --library cravey-backup doctor --repair` registers its clips.

            With --encrypt (or the backup.encrypt setting) the file is that tar encrypted with a \
            passphrase in the age format (age-encryption.org/v1, scrypt), so it can leave the \
            machine: the standard `age -d FILE > backup.tar` opens it without cravey, and \
            `cravey restore FILE` asks for the passphrase. It is asked for twice at the terminal, \
            without being shown; a script gives it on a file descriptor (--passphrase-fd 3 \
            3<secret) or in a file named by CRAVEY_PASSPHRASE_FILE (its first line), never as \
            an option's value, which every user sees in `ps`. Deriving the key costs about half \
            a second and 256 MiB of memory (scrypt at 2^18, the work factor `age -p` uses; age \
            itself takes about a second), done while the clips are written; the rest runs as \
            fast as the disk. A lost passphrase cannot be recovered.
            """)

    @OptionGroup var options: LibraryOptions
    @Option(help: ArgumentHelp("The new backup file (mode 0600). Never a place inside the library.", valueName: "path"),
            completion: .file(extensions: ["tar", "age"])) var output: String
    @Flag(help: "Replace a regular file already at --output (never a folder, a link or a device).") var force = false
    @Flag(inversion: .prefixedNo, help: "Encrypt the backup with a passphrase (age format); --no-encrypt when the backup.encrypt setting is on.")
    var encrypt: Bool?
    @Option(help: ArgumentHelp("With --encrypt: read the passphrase from this open file descriptor (its first line) instead of the terminal.",
                               valueName: "n"))
    var passphraseFd: Int32?
    @Flag(help: "Print what was written as JSON.") var json = false

    func run(with settings: Settings) throws {
        let encrypted = encrypt ?? settings.encryptsBackups
        if passphraseFd != nil && !encrypted {
            throw CraveyError(.invalidInput, "--passphrase-fd gives the passphrase of an encrypted backup: add --encrypt.")
        }
        let library = try options.open()
        let passphrase = encrypted ? try PassphraseInput(descriptor: passphraseFd).read(confirming: true) : nil
        let meter = PercentLine(encrypted ? "Encrypting" : "Backing up")
        let summary = try library.archive.backup(to: URL(fileURLWithPath: output), replacing: force, encryptingWith: passphrase,
                                         progress: meter.show)
        meter.clear()
        if json { return try Terminal.printJSON(summary) }
        Terminal.diagnostic("Backed up \(summary.clips) clip\(summary.clips == 1 ? "" : "s") to \(output) (\(ByteCount.text(summary.bytes))\(encrypted ? ", encrypted" : "")).")
        if !summary.leftOut.isEmpty {
            Terminal.diagnostic("Left out \(summary.leftOut.count), whose media could not be read (deleted meanwhile, or missing: `cravey doctor` says which): "
                                + summary.leftOut.map { Format.visible($0.title) }.joined(separator: ", ") + ".")
        }
    }
}

/// "Backing up… 42%" on stderr, rewritten in place, only on a terminal.
package final class PercentLine {
    private let label: String
    private var shown = -1

    package init(_ label: String) {
        self.label = label
    }

    package func show(_ fraction: Double) {
        guard Terminal.isInteractive else { return }
        let percent = Int(fraction * 100)
        guard percent != shown else { return }
        shown = percent
        Terminal.diagnostic("\r\(label)… \(percent)%", terminator: "")
    }

    package func clear() {
        if shown >= 0 { Terminal.diagnostic("\r\u{1B}[K", terminator: "") }
    }
}
