import Foundation
import GRDB

/// The requests that change a clip's markers (``ClipMarker``) in the `recording` table. Like
/// ``RecordingRepository`` it takes no lock: the transaction is the caller's.
package struct ClipMarkers {
    private let db: Database

    package init(_ db: Database) {
        self.db = db
    }

    /// Adds `marker` to `id`'s markers (one already at its millisecond takes its label, if it has
    /// one: a label given afterwards) and returns its row as it now is. `.notFound` when it is gone, `.invalidInput`
    /// for a marker past the clip's end or one more than ``ClipMarker/maxCount``, with nothing
    /// changed.
    package func add(_ marker: ClipMarker, to id: RecordingID) throws -> Recording {
        var recording = try existing(id)
        guard marker.seconds <= recording.duration + 0.0005 else {
            throw CraveyError(.invalidInput, "Cannot mark \"\(recording.title)\" at \(String(format: "%.3f s", marker.seconds)): it is \(String(format: "%.3f s", recording.duration)) long.")
        }
        let markers = ClipMarker.adding(marker, to: recording.markers)
        guard markers.count <= ClipMarker.maxCount else {
            throw CraveyError(.invalidInput, "A clip holds at most \(ClipMarker.maxCount) markers; \"\(recording.title)\" has them all. Remove one (`cravey markers ID --remove N`) first.")
        }
        try store(markers, of: id)
        recording.markers = markers
        return recording
    }

    /// Removes the `number`th of `id`'s markers (from 1, in time order, as `cravey markers`
    /// lists them) and returns its row as it now is. `.notFound` when it is gone,
    /// `.invalidInput` for a number no marker has, with nothing changed.
    package func remove(_ number: Int, of id: RecordingID) throws -> Recording {
        var recording = try existing(id)
        guard recording.markers.indices.contains(number - 1) else {
            let has = recording.markers.isEmpty ? "has no markers" : "has markers 1 to \(recording.markers.count)"
            throw CraveyError(.invalidInput, "\"\(recording.title)\" \(has): there is no marker \(number). `cravey markers ID` lists them.")
        }
        recording.markers.remove(at: number - 1)
        try store(recording.markers, of: id)
        return recording
    }

    private func existing(_ id: RecordingID) throws -> Recording {
        guard let recording = try Recording.fetchOne(db, key: id) else {
            throw CraveyError(.notFound, "The recording \(id.description) is no longer in the library.")
        }
        return recording
    }

    private func store(_ markers: [ClipMarker], of id: RecordingID) throws {
        try Recording.filter(key: id).updateAll(db, [Recording.Columns.markers.set(to: ClipMarker.stored(markers))])
    }
}
