import Foundation
import GRDB

/// The Quick Play slots recordings are pinned to, as GRDB requests on a `Database` (a column of
/// the `recording` table, one recording per slot). Like ``RecordingRepository`` it takes no lock:
/// the transaction is the caller's.
package struct QuickPlayPins {
    private let db: Database

    package init(_ db: Database) {
        self.db = db
    }

    /// The recording pinned to `slot`, if any.
    package func holder(of slot: Int) throws -> Recording? {
        try Recording.filter(Recording.Columns.pinnedSlot == slot).fetchOne(db)
    }

    /// Pins `id` to `slot`, or to the first free slot when `slot` is nil; a recording already in
    /// the slot is unpinned, and returned. Throws `.notFound` when `id` is gone, and
    /// `.invalidInput` for a slot out of 1 to 3, or no slot named while all of them are taken.
    package func pin(_ id: RecordingID, to slot: Int?) throws -> (pinned: Recording, displaced: Recording?) {
        let slots = 1...RecordingRepository.quickPlayCount
        guard var recording = try Recording.fetchOne(db, key: id) else {
            throw CraveyError(.notFound, "The recording \(id.description) is no longer in the library.")
        }
        let taken = try Recording.filter(Recording.Columns.pinnedSlot != nil).fetchAll(db)
        let chosen: Int
        if let slot {
            guard slots.contains(slot) else {
                throw CraveyError(.invalidInput, "\(slot) is not a Quick Play slot: give 1, 2 or 3.")
            }
            chosen = slot
        } else if let pinned = recording.pinnedSlot {
            chosen = pinned
        } else {
            guard let free = slots.first(where: { slot in !taken.contains { $0.pinnedSlot == slot } }) else {
                let names = taken.sorted { ($0.pinnedSlot ?? 0) < ($1.pinnedSlot ?? 0) }
                    .map { "\($0.pinnedSlot ?? 0): \(CraveyError.quoted($0.title, "\""))" }.joined(separator: ", ")
                throw CraveyError(.invalidInput, "Every Quick Play slot is pinned (\(names)). Name the slot to pin it to instead (`cravey pin ID 2`), or unpin one first (`cravey unpin ID`).")
            }
            chosen = free
        }
        var displaced = taken.first { $0.pinnedSlot == chosen && $0.id != id }
        if var other = displaced {
            other.pinnedSlot = nil
            try set(other.id, to: nil)
            displaced = other
        }
        if recording.pinnedSlot != chosen {
            try set(id, to: chosen)
            recording.pinnedSlot = chosen
        }
        return (recording, displaced)
    }

    /// Unpins `id`; returns its row as it now is. `.notFound` when it is gone.
    package func unpin(_ id: RecordingID) throws -> Recording {
        guard var recording = try Recording.fetchOne(db, key: id) else {
            throw CraveyError(.notFound, "The recording \(id.description) is no longer in the library.")
        }
        if recording.pinnedSlot != nil {
            try set(id, to: nil)
            recording.pinnedSlot = nil
        }
        return recording
    }

    private func set(_ id: RecordingID, to slot: Int?) throws {
        try Recording.filter(key: id).updateAll(db, [Recording.Columns.pinnedSlot.set(to: slot)])
    }
}
