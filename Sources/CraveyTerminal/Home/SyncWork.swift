import CraveyKit
import Foundation

/// The home screen's sync through the library's door (``LibrarySync``), as `cravey sync` does
/// it: what the outbox holds is sent, what other machines wrote is merged, then the inbox's
/// media imported (``SyncInbox``). Blocking (the folder's files, the writers' lock, FFmpeg): run
/// it off the cooperative pool (``HomeWork``).
struct SyncWork: Sendable {
    let library: RecordingLibrary

    /// Sends, then merges; what it did. A send that fails (the folder not writable) is said and
    /// the merge still runs; a merge that fails (the folder not there, a merge of another
    /// process under way) is the outcome.
    func perform() -> HomeSync.Outcome {
        var unsent: String?
        do {
            try library.sync.send()
        } catch {
            unsent = (error as? CraveyError).map { Messages.text(for: $0) } ?? "\(error)"
        }
        do {
            let merged = try library.sync.merge()
            let taken = try library.sync.inbox.take()
            return .merged(merged, unsent: unsent, imported: taken.imported.count, arriving: taken.arriving > 0)
        } catch {
            return HomeSync.failure(error)
        }
    }
}
