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
            """)

    @OptionGroup var options: LibraryOptions
    @Option(help: ArgumentHelp("The new backup file (mode 0600). Never a place inside the library.", valueName: "path"),
            completion: .file(extensions: ["tar"])) var output: String
    @Flag(help: "Replace a regular file already at --output (never a folder, a link or a device).") var force = false
    @Flag(help: "Print what was written as JSON.") var json = false

    func run() throws {
        let library = try options.open()
        let meter = ProgressLine("Backing up")
        let summary = try library.backup(to: URL(fileURLWithPath: output), replacing: force, progress: meter.show)
        meter.clear()
        if json { return try Terminal.printJSON(summary) }
        Terminal.diagnostic("Backed up \(summary.clips) clip\(summary.clips == 1 ? "" : "s") to \(output) (\(ByteCount.text(summary.bytes))).")
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
            """)

    @OptionGroup var options: LibraryOptions
    @Argument(help: ArgumentHelp("A file `cravey backup` wrote.", valueName: "backup"), completion: .file(extensions: ["tar"])) var file: String
    @Flag(help: "Print what was restored as JSON.") var json = false

    func run() throws {
        let backup = URL(fileURLWithPath: file)
        var library = try options.open()
        if !library.store.isStored {
            // A backup that cannot be restored makes no library.
            try RecordingLibrary.checkBackup(at: backup, for: options.libraryURL)
            library = try options.open(creating: true)
        }
        let meter = ProgressLine("Restoring")
        let summary = try library.restore(from: backup, progress: meter.show)
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
