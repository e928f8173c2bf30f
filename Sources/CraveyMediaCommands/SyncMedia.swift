import ArgumentParser
import CraveyCommands
import CraveyKit
import Foundation

/// Runs `cravey sync` when the sync folder's inbox holds media to import (`cravey` runs the rest
/// itself and hands this over): sends and merges as `cravey` does, then imports the inbox
/// (``SyncInbox``), which needs FFmpeg.
struct SyncMedia: ParsableCommand {
    static let configuration = Sync.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: Sync

    func run() throws {
        try command.run { library in try library.sync.inbox.take() }
    }
}
