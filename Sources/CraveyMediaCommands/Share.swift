import ArgumentParser
import CraveyCommands
import CraveyKit
import Foundation

/// Runs `cravey share` (its command line is ``ShareOptions``, which `cravey` shows in its help).
struct Share: AsyncParsableCommand {
    static let configuration = ShareOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: ShareOptions

    /// Clips longer than this show their progress on a terminal.
    static let progressAfter = 30.0

    func run() async throws {
        let library = try command.options.open()
        let recording = try library.recording(matching: command.id)
        let url = URL(fileURLWithPath: command.output)
        let shows = Terminal.isInteractive && recording.duration > Self.progressAfter
        let shown = Locked(-1)
        try await library.share(recording, to: url, title: command.title, chapters: command.chapters,
                                replacing: command.force) { done in
            guard shows else { return }
            let percent = Int(done * 100)
            let changed = shown.withLock { last in
                defer { last = percent }
                return last != percent
            }
            guard changed else { return }
            Terminal.diagnostic("\r\u{1B}[2KSharing \"\(Format.visible(recording.title))\": \(percent)%", terminator: "")
        }
        if shows { Terminal.diagnostic("", terminator: "\r\u{1B}[2K") }
        Terminal.diagnostic("Shared \"\(Format.visible(recording.title))\" to \(url.path).")
    }
}
