import CraveyKit
import Foundation

/// The home screen's side of sync (docs/sync.md), as a value: whether a sync runs (one at a
/// time; what lands meanwhile asks for one more after it), and the last one's time and outcome,
/// which the header shows as the original app's settings did ("synced 14:02 · 3 changes
/// merged", "sync failed 14:05 · folder not there").
struct HomeSync: Equatable {
    /// What one sync did (``SyncWork``), or a send after a change that failed.
    enum Outcome: Equatable, Sendable {
        /// Sent and merged: what the merge did, why the send before it failed (nil: it did not),
        /// the clips imported from the inbox, and whether files there are still arriving.
        case merged(LibrarySync.Merging, unsent: String?, imported: Int = 0, arriving: Bool = false)
        /// Failed: in a word, and what a person reads of it.
        case failed(word: String, message: String)
    }

    /// Whether a sync runs now (``SyncWork``, off the screen's thread).
    private(set) var running = false
    /// Something landed while it ran: one more once it ends.
    private var again = false
    /// The last sync's outcome and when it ended; nil before the first.
    private(set) var last: Outcome?
    private(set) var at: Date?

    /// Something landed in the sync folder (or the screen opened on a library that syncs): true
    /// when a sync starts now, false when one runs (one more follows it).
    mutating func landed() -> Bool {
        guard !running else {
            again = true
            return false
        }
        running = true
        return true
    }

    /// A sync ended at `time` with `outcome`; true when one more starts now (something landed
    /// while it ran).
    mutating func ended(_ outcome: Outcome, at time: Date) -> Bool {
        (last, at, running) = (outcome, time, again)
        again = false
        return running
    }

    /// A change's send to the folder failed at `time` (``LibrarySync/whenUnsent(_:)``): the
    /// change is kept, and the next sync sends it.
    mutating func unsent(_ error: CraveyError, at time: Date) {
        (last, at) = (.failed(word: "not sent", message: "Not sent to the sync folder: \(Messages.text(for: error)) The change is kept; the next sync sends it."), time)
    }

    /// What the header shows of the last sync; nil before the first.
    var text: String? {
        guard let last, let at else { return running ? "syncing…" : nil }
        let time = Self.time(at)
        switch last {
        case .failed(let word, _):
            return "sync failed \(time) · \(word)"
        case .merged(let merging, let unsent, let imported, _):
            var words: [String] = []
            if merging.changes > 0 { words.append("\(merging.changes) change\(merging.changes == 1 ? "" : "s") merged") }
            if imported > 0 { words.append("\(imported) imported") }
            if merging.refused > 0 { words.append("\(merging.refused) refused") }
            if merging.waiting > 0 { words.append("\(merging.waiting) waiting") }
            if unsent != nil { words.append("not sent") }
            return "synced \(time) · " + (words.isEmpty ? "up to date" : words.joined(separator: ", "))
        }
    }

    /// Whether the header shows a failure (drawn as a warning).
    var failed: Bool {
        switch last {
        case .failed?: true
        case .merged(let merging, let unsent, _, _)?: merging.refused > 0 || unsent != nil
        case nil: false
        }
    }

    /// The outcome of a sync that threw `error`: the failure in a word, and its message.
    static func failure(_ error: any Error) -> Outcome {
        guard let error = error as? CraveyError else { return .failed(word: "failed", message: "Sync failed: \(error)") }
        let word = switch error.kind {
        case .notFound: "folder not there"
        case .cannotWrite: "cannot write"
        case .busy: "busy"
        default: "failed"
        }
        return .failed(word: word, message: Messages.text(for: error))
    }

    /// "14:02" in local time: the header's room is short, and the day is today's in nearly every
    /// case. Formatters made once: the header is drawn at every frame.
    static func time(_ date: Date) -> String {
        (Calendar.current.isDateInToday(date) ? clock : dayAndClock).string(from: date)
    }

    private static let clock = formatter("HH:mm")
    private static let dayAndClock = formatter("MMM d HH:mm")

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.dateFormat = format
        return formatter
    }
}
