import ArgumentParser
import CraveyCommands
import CraveyKit
import Foundation

/// Runs `cravey restore` (its command line is ``RestoreOptions``, which `cravey` shows in its help).
struct RestoreMedia: ParsableCommand {
    static let configuration = RestoreOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: RestoreOptions

    func run() throws {
        let (options, file, passphraseFd, json) = (command.options, command.file, command.passphraseFd, command.json)
        let backup = URL(fileURLWithPath: file)
        var library = try options.open()
        let meter = PercentLine("Restoring")
        // Checked whole first: a backup that cannot be restored makes no library, and is read
        // (and its passphrase asked for) once for both.
        let checked = try LibraryArchive.checkBackup(at: backup, for: options.libraryURL, passphrase: {
            try PassphraseInput(descriptor: passphraseFd).read(confirming: false)
        }, progress: meter.show)
        if !library.isCreated { library = try options.open(creating: true) }
        let summary = try library.archive.restore(checked, progress: meter.show)
        meter.clear()
        if json { return try Terminal.printJSON(summary) }
        var line = "Restored \(summary.restored.count) clip\(summary.restored.count == 1 ? "" : "s")"
        if summary.alreadyThere > 0 { line += "; \(summary.alreadyThere) already in the library" }
        Terminal.diagnostic(line + ".")
        if summary.reminders > 0 {
            Terminal.diagnostic("Restored \(summary.reminders) reminder\(summary.reminders == 1 ? "" : "s"): `cravey remind resume` makes their timers on this machine.")
        }
        if !summary.blocked.isEmpty {
            Terminal.diagnostic("Not restored: \(summary.blocked.map { Format.visible($0.title) }.joined(separator: ", ")), whose place in Recordings/ a file without a library entry holds. Run `cravey doctor --repair` to register it, then restore again.")
        }
    }
}
