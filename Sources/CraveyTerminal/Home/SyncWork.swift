import CraveyKit
import Foundation

/// The home screen's sync through the library's door (``LibrarySync``), as `cravey sync` does
/// it: what the outbox holds is sent, then what other machines wrote is merged. Blocking (the
/// folder's files, the writers' lock): run it off the cooperative pool (``HomeWork``).
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
            return .merged(try library.sync.merge(), unsent: unsent)
        } catch {
            return HomeSync.failure(error)
        }
    }
}
