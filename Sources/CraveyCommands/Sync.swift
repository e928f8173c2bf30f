import ArgumentParser
import CraveyCore
import Foundation

/// `cravey sync [FOLDER]`: joins the library to a sync folder, or sends its changes there.
package struct Sync: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Keep the library in step through a folder Syncthing (or any file syncer) carries.",
        discussion: """
            `cravey sync FOLDER` joins the library to a sync folder: an empty folder (or one \
            not made yet, whose parent is there) is set up, and a folder another machine set up \
            is joined; then every clip is sent there. cravey never lets its database sync: it \
            writes what changed into the folder as files of its own, every one encrypted and \
            authenticated in the age format, named by ids only (no title, word or tag is \
            readable there). The folder's key comes from a passphrase: asked twice at the \
            terminal for a new folder and once to join, or given as backups give theirs \
            (--passphrase-fd 3 3<secret, or the file CRAVEY_PASSPHRASE_FILE names); the key it \
            unlocks is kept in the library (sync-key.txt, mode 0600, as age-keygen writes one: \
            `age -d -i` opens the folder's files with it), so later syncs ask nothing. A \
            library syncs with one folder; a copy of its folder (on a second machine, or \
            beside it) is a device of its own, and a library restored from a backup syncs \
            with nothing until it joins. From then on every change (a recording, an edit, a play, a \
            delete) is kept in the library in the same step as the change itself and sent to \
            the folder once it is made; one made while the folder cannot be written (a disk \
            not mounted, read-only, full) is saved all the same and waits, the command that \
            made it says so in one line on stderr (its exit status stays the change's), and \
            `cravey sync` (or the next change) sends it (a send cut short sends the same \
            again). Then it merges what the other machines wrote there: their clips (media \
            copied into the library), edits, plays, tags, pins, markers, trims and deletes, by \
            rules that give every machine the same library in any order (plays add up, the \
            edit made last wins, a delete is final); a file whose clip or media has not \
            arrived yet waits for the next sync. Then (not when joining) it imports the audio \
            and video a phone or another recorder dropped into the folder's inbox/, as `cravey \
            import` does: each file once, by whichever machine takes it first (a clip's id is \
            made from the file's bytes, so two machines taking it at once make one clip), then \
            taken out of the inbox; a file still arriving is left until it is whole, and one \
            that is not media cravey imports is left in place and named by --status. \
            docs/sync.md gives the folder's layout and its rules.

            `cravey sync --show-key` prints the folder's key as age-keygen writes one: saved \
            to a file, `age -d -i FILE` opens any file cravey put in the folder, without \
            cravey. Whoever has it reads every clip in the folder: keep it as the passphrase.

            `cravey sync --status` says where sync stands: the folder, this library's device, \
            the change files not sent yet, each device that has written to the folder with \
            its name (its machine's host name), the number of its last change file and of the \
            last one merged here, and each change file refused at the last merge and why (one \
            that does not authenticate or decode, or whose clock is more than a day ahead: \
            never applied, and its device's later files wait behind it).

            `cravey sync --leave` stops syncing and forgets the key (what is not sent yet is \
            sent first, when the folder can be written); with --erase it also takes this \
            library's files out of the folder, so out of every machine's folder (each library \
            keeps its own clips). A library that joins again tells the folder every clip anew.

            Refused, nothing changed: a folder that is the library, is inside it or holds it, \
            or is neither empty nor a sync folder (exit 76); a passphrase that does not open \
            the folder (exit 67); a library that syncs with another folder (exit 64).
            """)

    @OptionGroup var options: LibraryOptions
    @Argument(help: ArgumentHelp("The sync folder to join, or to set up when it is empty. Without it: send to the folder joined, then merge what other machines wrote there.", valueName: "folder"),
              completion: .directory)
    var folder: String?
    @Option(help: ArgumentHelp("Joining: read the passphrase from this open file descriptor (its first line) instead of the terminal.",
                               valueName: "n"))
    var passphraseFd: Int32?
    @Flag(help: "Say where sync stands (the folder, the devices, what is not sent yet, what was refused) and send or merge nothing.") var status = false
    @Flag(help: "Print the sync folder's key (age-keygen's format; `age -d -i` opens the folder's files with it).") var showKey = false
    @Flag(help: "Stop syncing and forget the folder's key.") var leave = false
    @Flag(help: "With --leave: take this library's files out of the sync folder too.") var erase = false
    @Flag(help: "Print what was done (or, with --status, where sync stands) as JSON.") var json = false

    /// What `--json` prints.
    struct Summary: Encodable {
        var folder: String
        var device: String
        /// "set up", "joined" or "sent".
        var action: String
        var files: Int
        var blobs: Int
        /// What was merged: change files, their changes, media copied in; files left for the
        /// next sync and files refused.
        var merged: Int
        var changes: Int
        var mergedMedia: Int
        var waiting: Int
        var refused: Int
        /// The inbox: clips imported from it, files still arriving, files left as not media.
        var imported: Int
        var inboxArriving: Int
        var inboxRefused: Int
    }

    /// What `--leave --json` prints.
    struct LeaveSummary: Encodable {
        var folder: String
        var device: String
        var erased: Bool
        var unsent: Int
    }

    /// What `--status --json` prints.
    struct StatusSummary: Encodable {
        struct Device: Encodable {
            var device: String
            var name: String?
            var lastFile: UInt64
            /// The last of its change files merged here (none for this library).
            var merged: UInt64?
            var isThisLibrary: Bool
        }

        struct Refused: Encodable {
            var device: String
            var file: UInt64
            var reason: String
        }

        var folder: String
        var device: String
        var unsent: Int
        var devices: [Device]
        var refused: [Refused]
        /// The inbox: files the next sync imports, files still arriving, files left (not media).
        var inbox: Inbox

        struct Inbox: Encodable {
            var waiting: [String]
            var arriving: [String]
            var refused: [Refused]

            struct Refused: Encodable {
                var name: String
                var reason: String
            }
        }
    }

    package init() {}

    package func validate() throws {
        if status && (folder != nil || passphraseFd != nil || leave) {
            throw ValidationError("--status only says where sync stands: give no FOLDER, --passphrase-fd or --leave.")
        }
        if leave && (folder != nil || passphraseFd != nil) {
            throw ValidationError("--leave leaves the folder the library syncs with: give no FOLDER and no --passphrase-fd.")
        }
        if erase && !leave { throw ValidationError("--erase goes with --leave: `cravey sync --leave --erase`.") }
        if showKey && (folder != nil || passphraseFd != nil || leave || status) {
            throw ValidationError("--show-key only prints the key of the folder the library syncs with: give it alone.")
        }
        if folder?.isEmpty == true { throw ValidationError("FOLDER is empty: name the sync folder.") }
        if passphraseFd != nil && folder == nil {
            throw ValidationError("--passphrase-fd gives the passphrase of a folder to join: name the FOLDER.")
        }
    }

    package func run() throws {
        try run(importing: nil)
    }

    /// Runs the command; `importing` takes the inbox's media (``SyncInbox``, in `cravey-media`:
    /// it needs FFmpeg). Without it, a sync that has media to import hands itself over
    /// (``CommandRoute/HandOff``) before it does anything.
    package func run(importing: ((RecordingLibrary) throws -> SyncInbox.Taking)?) throws {
        if let folder { return try report(join(folder)) }
        let library = try options.open()
        if status { return try printStatus(of: library) }
        if showKey {
            guard let (folder, _) = try library.sync.joinedFolder() else { throw Self.notJoined }
            if json { return try Terminal.printJSON(["folder": folder.url.path, "key": folder.key.description]) }
            return try Terminal.output("# The key of the sync folder \(folder.url.path): `age -d -i` this file opens its files.\n\(folder.key)")
        }
        if leave {
            let left = try library.sync.leave(erasing: erase)
            if json { return try Terminal.printJSON(LeaveSummary(folder: left.folder.path, device: left.device.hex, erased: left.erased, unsent: left.unsent)) }
            let lost = left.unsent == 0 ? "" : " \(left.unsent) change file\(left.unsent == 1 ? "" : "s") could not be sent first (the folder could not be written) and never will be."
            Terminal.diagnostic("Left the sync folder \(left.folder.path)\(left.erased ? " and took this library's files out of it" : ""); its key is forgotten.\(lost)")
            return
        }
        guard let (joined, device) = try library.sync.joinedFolder() else {
            throw Self.notJoined
        }
        // Without `importing`, media waiting in the inbox hands the command over; what else is
        // there (arriving, refused) is counted from the same look.
        let inbox = importing == nil ? try library.sync.inbox.scan() : nil
        if let inbox, !inbox.candidates.isEmpty { throw CommandRoute.HandOff() }
        let sent = try library.sync.send()
        let merged = try library.sync.merge()
        let summary = Summary(folder: joined.url.path, device: device.device.hex, action: "sent", files: sent.files, blobs: sent.blobs, merging: merged,
                              taking: try importing?(library) ?? inbox?.taking ?? SyncInbox.Taking())
        try report(summary)
    }

    /// Joins the folder `path` names (sets it up when empty), making the library when it is not
    /// there yet (a new machine's), then merges. The folder is checked first (not the library,
    /// inside it or holding it; empty, or a sync folder the passphrase opens): what is refused
    /// is refused before anything is made.
    private func join(_ path: String) throws -> Summary {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        // Refused before a passphrase is asked for, as it would be after.
        try LibrarySync.refuseOverlap(url, library: options.folder())
        let isNew = !FileManager.default.fileExists(atPath: url.appendingPathComponent(SyncFolder.keyFileName).path)
        if isNew { try SyncFolder.refuseUnusable(url) }
        let passphrase = Array(try PassphraseInput(descriptor: passphraseFd).read(confirming: isNew, of: "sync folder").utf8)
        let opened = isNew ? nil : try SyncFolder.join(at: url, passphrase: passphrase)
        let library = try options.open(creating: true)
        let joining = try library.sync.join(url, passphrase: passphrase, opened: opened)
        let merged = try library.sync.merge()
        return Summary(folder: url.path, device: joining.device.hex, action: joining.created ? "set up" : "joined",
                       files: joining.sent.files, blobs: joining.sent.blobs, merging: merged, taking: SyncInbox.Taking())
    }

    /// Says what a sync did (`--json`: as an object).
    private func report(_ summary: Summary) throws {
        if json { return try Terminal.printJSON(summary) }
        var what = summary.files == 0 ? "nothing new to send" : "sent \(summary.files) change file\(summary.files == 1 ? "" : "s") and \(summary.blobs) media file\(summary.blobs == 1 ? "" : "s")"
        what += summary.merged == 0 ? ", nothing new to merge" : "; merged \(summary.merged) change file\(summary.merged == 1 ? "" : "s") of other machines (\(summary.changes) change\(summary.changes == 1 ? "" : "s"), \(summary.mergedMedia) media file\(summary.mergedMedia == 1 ? "" : "s"))"
        if summary.waiting > 0 { what += "; \(summary.waiting) change file\(summary.waiting == 1 ? "" : "s") wait for what they need to arrive" }
        if summary.refused > 0 { what += "; \(summary.refused) refused (`cravey sync --status` says why)" }
        if summary.imported > 0 { what += "; imported \(summary.imported) file\(summary.imported == 1 ? "" : "s") from the inbox" }
        if summary.inboxArriving > 0 { what += "; \(summary.inboxArriving) file\(summary.inboxArriving == 1 ? "" : "s") in the inbox still arriving, left until whole" }
        if summary.inboxRefused > 0 {
            what += "; \(summary.inboxRefused) file\(summary.inboxRefused == 1 ? "" : "s") in the inbox not imported, left there (`cravey sync --status` says why)"
        }
        switch summary.action {
        case "set up": Terminal.diagnostic("Set up the sync folder \(summary.folder) and joined it; \(what). Keep its passphrase: every other machine joins with it.")
        case "joined": Terminal.diagnostic("Joined the sync folder \(summary.folder); \(what).")
        default: Terminal.diagnostic("Synced with \(summary.folder): \(what).")
        }
    }

    /// A library that has joined no folder, asked to send or say where sync stands.
    static let notJoined = CraveyError(.notFound, "This library syncs with no folder: join one with `cravey sync FOLDER`.")

    private func printStatus(of library: RecordingLibrary) throws {
        guard let status = try library.sync.status() else {
            throw Self.notJoined
        }
        let devices = status.devices.sorted { $0.key < $1.key }.map { device, last in
            StatusSummary.Device(device: device.hex, name: status.names[device], lastFile: last,
                                 merged: device == status.device ? nil : status.merged[device] ?? 0, isThisLibrary: device == status.device)
        }
        let refused = status.refused.map { StatusSummary.Refused(device: $0.device.hex, file: $0.file, reason: $0.reason) }
        if json {
            let inbox = StatusSummary.Inbox(waiting: status.inbox.candidates.map(\.name), arriving: status.inbox.arriving,
                                            refused: status.inbox.refused.map { .init(name: $0.name, reason: $0.reason) })
            return try Terminal.printJSON(StatusSummary(folder: status.folder.path, device: status.device.hex, unsent: status.unsent,
                                                        devices: devices, refused: refused, inbox: inbox))
        }
        var lines = ["Sync folder: \(status.folder.path)", "This library: device \(status.device.hex)",
                     "Not sent yet: \(status.unsent == 0 ? "nothing" : "\(status.unsent) change file\(status.unsent == 1 ? "" : "s") (`cravey sync` sends them)")"]
        lines.append(devices.isEmpty ? "Devices in the folder: none (is the folder there?)" : "Devices in the folder:")
        for device in devices {
            let name = device.name.map { " \"\(Format.visible($0))\"" } ?? ""
            let merged = device.merged.map { ", merged up to \($0)" } ?? ""
            lines.append("  \(device.device)\(name)\(device.isThisLibrary ? " (this library)" : ""): last change file \(device.lastFile)\(merged)")
        }
        lines.append(refused.isEmpty ? "Refused: nothing" : "Refused (not merged, nor their device's later files):")
        for file in refused {
            lines.append("  \(file.device) change file \(file.file): \(Format.visible(file.reason))")
        }
        let inbox = status.inbox
        if inbox.candidates.isEmpty && inbox.arriving.isEmpty && inbox.refused.isEmpty {
            lines.append("Inbox: nothing to import")
        } else {
            lines.append("Inbox:")
            for file in inbox.candidates { lines.append("  \(Format.visible(file.name)): imported at the next sync") }
            for name in inbox.arriving { lines.append("  \(Format.visible(name)): still arriving, left until whole") }
            for file in inbox.refused { lines.append("  \(Format.visible(file.name)): left there, not imported: \(Format.visible(file.reason))") }
        }
        try Terminal.output(lines.joined(separator: "\n"))
    }
}

extension Sync.Summary {
    init(folder: String, device: String, action: String, files: Int, blobs: Int, merging: LibrarySync.Merging, taking: SyncInbox.Taking) {
        self.init(folder: folder, device: device, action: action, files: files, blobs: blobs, merged: merging.files,
                  changes: merging.changes, mergedMedia: merging.blobs, waiting: merging.waiting, refused: merging.refused,
                  imported: taking.imported.count, inboxArriving: taking.arriving, inboxRefused: taking.refused)
    }
}
