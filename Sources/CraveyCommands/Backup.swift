import ArgumentParser
import CraveyCore
import Foundation

struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write every clip, with its words, date and plays, to one file.",
        discussion: """
            The file is a tar archive (`tar -tf FILE` lists it), written in one step, mode \
            0600: the library's Recordings/ folder under cravey-backup/, each clip's media, \
            thumbnail, waveform and record (its title, notes, purpose, date, plays and loudness, \
            as JSON), then cravey-backup/manifest.json with the size and SHA-256 of every file. \
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

    func run() throws {
        let encrypted = encrypt ?? Settings.current.encryptsBackups
        if passphraseFd != nil && !encrypted {
            throw CraveyError(.invalidInput, "--passphrase-fd gives the passphrase of an encrypted backup: add --encrypt.")
        }
        let library = try options.open()
        let passphrase = encrypted ? try PassphraseInput(descriptor: passphraseFd).read(confirming: true) : nil
        let meter = ProgressLine(encrypted ? "Encrypting" : "Backing up")
        let summary = try library.backup(to: URL(fileURLWithPath: output), replacing: force, encryptingWith: passphrase,
                                         progress: meter.show)
        meter.clear()
        if json { return try Terminal.printJSON(summary) }
        Terminal.diagnostic("Backed up \(summary.clips) clip\(summary.clips == 1 ? "" : "s") to \(output) (\(FileStorageManager.formatBytes(summary.bytes))\(encrypted ? ", encrypted" : "")).")
        if !summary.leftOut.isEmpty {
            Terminal.diagnostic("Left out \(summary.leftOut.count), whose media could not be read (deleted meanwhile, or missing: `cravey doctor` says which): "
                                + summary.leftOut.map { Format.visible($0.title) }.joined(separator: ", ") + ".")
        }
    }
}

struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add the clips of a backup that the library does not have.",
        discussion: """
            Every byte of the backup is checked first against its manifest; a backup that is \
            damaged, cut short, altered or not cravey's restores nothing (exit 65) and makes no \
            library. Then each clip the library lacks (by id) is saved, durably as a recording \
            is, with its words, date, plays and thumbnail; clips it has are left as they are. A \
            clip deleted since the backup comes back. Running it twice adds nothing the second \
            time. A backup made before clips kept waveforms restores as it is (`cravey doctor \
            --repair` then makes them).

            An encrypted backup (`cravey backup --encrypt`, or a cravey tar encrypted with \
            `age -p`) is recognised by its first bytes, and its passphrase asked for at the \
            terminal, or read from --passphrase-fd N or the file CRAVEY_PASSPHRASE_FILE names. \
            Every 64 KiB chunk is verified before its bytes are used: a wrong passphrase, or a \
            single byte changed anywhere, restores nothing (exit 65).
            """)

    @OptionGroup var options: LibraryOptions
    @Argument(help: ArgumentHelp("A file `cravey backup` wrote.", valueName: "backup"), completion: .file(extensions: ["tar", "age"])) var file: String
    @Option(help: ArgumentHelp("For an encrypted backup: read the passphrase from this open file descriptor (its first line) instead of the terminal.",
                               valueName: "n"))
    var passphraseFd: Int32?
    @Flag(help: "Print what was restored as JSON.") var json = false

    func run() throws {
        let backup = URL(fileURLWithPath: file)
        var library = try options.open()
        let meter = ProgressLine("Restoring")
        // Checked whole first: a backup that cannot be restored makes no library, and is read
        // (and its passphrase asked for) once for both.
        let checked = try RecordingLibrary.checkBackup(at: backup, for: options.libraryURL, passphrase: {
            try PassphraseInput(descriptor: passphraseFd).read(confirming: false)
        }, progress: meter.show)
        if !library.storage.isStored { library = try options.open(creating: true) }
        let summary = try library.restore(checked, progress: meter.show)
        meter.clear()
        if json { return try Terminal.printJSON(summary) }
        var line = "Restored \(summary.restored.count) clip\(summary.restored.count == 1 ? "" : "s")"
        if summary.alreadyThere > 0 { line += "; \(summary.alreadyThere) already in the library" }
        Terminal.diagnostic(line + ".")
        if !summary.blocked.isEmpty {
            Terminal.diagnostic("Not restored: \(summary.blocked.map { Format.visible($0.title) }.joined(separator: ", ")), whose place in Recordings/ a file without a library entry holds. Run `cravey doctor --repair` to register it, then restore again.")
        }
    }
}

/// "Backing up… 42%" on stderr, rewritten in place, only on a terminal.
final class ProgressLine {
    private let label: String
    private var shown = -1

    init(_ label: String) {
        self.label = label
    }

    func show(_ fraction: Double) {
        guard Terminal.isInteractive else { return }
        let percent = Int(fraction * 100)
        guard percent != shown else { return }
        shown = percent
        Terminal.diagnostic("\r\(label)… \(percent)%", terminator: "")
    }

    func clear() {
        if shown >= 0 { Terminal.diagnostic("\r\u{1B}[K", terminator: "") }
    }
}
