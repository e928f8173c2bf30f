import Foundation

/// What every change merged so far makes of a library, by rules that lose nothing and give the
/// same state in any order, with any change merged once or many times (docs/sync.md):
///
/// - a field, the words, the media and a Quick Play slot take the change made last (``SyncTime``);
/// - plays are a set: a clip's count is the number of its plays, made on any device;
/// - a tag is on while an add of it is not among the adds a remove saw (an add beats a remove
///   made without seeing it); markers are added and removed each by its id;
/// - a delete is final: changes of a deleted clip, whenever they come, are dropped.
///
/// A change of a clip whose `clip` change has not come yet is kept: the clip shows once it does.
package struct SyncState: Equatable, Sendable {
    /// A value and the change that set it.
    package struct Stamped<Value: Equatable & Sendable>: Equatable, Sendable {
        package var value: Value
        package var time: SyncTime
        /// The change's id: of two changes of one time (only a crafted file has them), the later id wins.
        package var change: SyncChange.ID

        init(_ value: Value, from change: SyncChange) {
            (self.value, time, self.change) = (value, change.time, change.id)
        }

        /// Whether `change` was made after the one that set this value.
        func isBefore(_ change: SyncChange) -> Bool {
            (time, self.change) < (change.time, change.id)
        }

        /// `stamped` with `value` when `change` was made after its change (or it is nil).
        static func latest(_ stamped: Stamped?, _ value: Value, from change: SyncChange) -> Stamped {
            guard let stamped, !stamped.isBefore(change) else { return Stamped(value, from: change) }
            return stamped
        }
    }

    /// A clip as its changes make it.
    package struct Clip: Equatable, Sendable {
        /// What its `clip` change says: its type and the date it was made.
        package struct Made: Equatable, Sendable {
            package var type: RecordingType
            package var createdAt: Date
        }

        /// A play: when, and whether it went to the end.
        package struct Play: Equatable, Sendable {
            package var at: Date
            package var completed: Bool
        }

        /// Its `clip` change's (of two, a crafted file's, the earlier).
        package var made: Stamped<Made>?
        package var media: Stamped<SyncChange.Media>?
        package var fields: [SyncChange.Field: Stamped<String?>] = [:]
        package var words: Stamped<Data?>?
        package var plays: [UUID: Stamped<Play>] = [:]
        package var tagAdds: [String: Set<UUID>] = [:]
        package var tagRemoved: [String: Set<UUID>] = [:]
        package var markers: [UUID: Stamped<ClipMarker>] = [:]
        package var removedMarkers: Set<UUID> = []

        /// Whether its `clip` change has come (before, it is not shown).
        package var isMade: Bool { made != nil }

        /// The tags it has, in order.
        package var tags: [String] {
            tagAdds.filter { tag, adds in !adds.subtracting(tagRemoved[tag] ?? []).isEmpty }.keys.sorted()
        }

        /// Its markers, one a millisecond (of two there, the one added last), in time order.
        package var liveMarkers: [ClipMarker] {
            var byMillisecond: [Int64: Stamped<ClipMarker>] = [:]
            for (id, marker) in markers where !removedMarkers.contains(id) {
                if let held = byMillisecond[marker.value.milliseconds], (held.time, held.change) > (marker.time, marker.change) { continue }
                byMillisecond[marker.value.milliseconds] = marker
            }
            return byMillisecond.keys.sorted().map { byMillisecond[$0]!.value }
        }

        /// How many times it was played, on every device.
        package var playCount: Int { plays.count }
    }

    /// The clips, by id: those made and those whose changes came before their `clip` change.
    package private(set) var clips: [RecordingID: Clip] = [:]
    /// The clips deleted, for good.
    package private(set) var deleted: Set<RecordingID> = []
    /// The Quick Play slots given a clip (or emptied) by a change.
    package private(set) var pins: [Int: Stamped<RecordingID?>] = [:]
    /// Every change merged, by id.
    package private(set) var merged: Set<SyncChange.ID> = []

    package init() {}

    /// Merges `change`; false when it was merged before (nothing changes then).
    @discardableResult
    package mutating func merge(_ change: SyncChange) -> Bool {
        guard merged.insert(change.id).inserted else { return false }
        if case .pin(let slot, let clip) = change.kind {
            pins[slot] = .latest(pins[slot], clip, from: change)
            return true
        }
        guard let id = change.clip, !deleted.contains(id) else { return true }
        if case .delete = change.kind {
            deleted.insert(id)
            clips[id] = nil
            return true
        }
        clips[id, default: Clip()].merge(change)
        return true
    }

    /// The clip of each Quick Play slot: the one the last change gave it, when it is not deleted.
    package var quickPlay: [Int: RecordingID] {
        pins.compactMapValues { pinned in pinned.value.flatMap { deleted.contains($0) ? nil : $0 } }
    }
}

extension SyncState.Clip {
    /// Merges a change of this clip (never a delete or a pin: the state's).
    mutating func merge(_ change: SyncChange) {
        switch change.kind {
        case .clip(let type, let createdAt, let media):
            // Made once: of two `clip` changes of one id (a crafted file), the earlier.
            let made = Made(type: type, createdAt: createdAt)
            if self.made?.isBefore(change) != true { self.made = SyncState.Stamped(made, from: change) }
            self.media = .latest(self.media, media, from: change)
        case .field(let field, let value):
            fields[field] = .latest(fields[field], value, from: change)
        case .words(let words):
            self.words = .latest(self.words, words, from: change)
        case .play(let id, let at, let completed):
            // (Two changes giving one play id, a crafted file's: the later, wherever merged.)
            let play = Play(at: at, completed: completed)
            plays[id] = .latest(plays[id], play, from: change)
        case .tagAdded(let tag, let add):
            tagAdds[tag, default: []].insert(add)
        case .tagRemoved(let tag, let adds):
            tagRemoved[tag, default: []].formUnion(adds)
        case .markerAdded(let id, let milliseconds, let label):
            let marker = ClipMarker(milliseconds: milliseconds, label: label)
            markers[id] = .latest(markers[id], marker, from: change)
        case .markerRemoved(let id):
            removedMarkers.insert(id)
        case .media(let media):
            self.media = .latest(self.media, media, from: change)
        case .delete, .pin:
            break
        }
    }
}
