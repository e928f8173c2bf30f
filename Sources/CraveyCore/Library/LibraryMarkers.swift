import Foundation

/// A clip's markers: moments of it, each with an optional label, kept in its row (and so in its
/// copy and its backups), which `cravey markers`, the player's `m` and a share's chapters use.
/// A capability reached from the door (``RecordingLibrary/markers``); the rows are
/// ``ClipMarkers``'.
package struct LibraryMarkers: Sendable {
    package let library: RecordingLibrary

    /// Marks a moment of a recording, `seconds` from its start (to the millisecond), with an
    /// optional label held to what a title is held to (``ClipMarker``); a marker already at that
    /// millisecond takes the label, if one is given (its label given afterwards). One transaction; its copy (and so
    /// its backups) keeps it. Returns the row as it now is.
    ///
    /// Throws ``CraveyError``: `.notFound` for a recording not in the library, `.invalidInput`
    /// for a label refused, a time past the clip's end, or more than 500 markers (nothing
    /// changes).
    @discardableResult
    package func add(to id: RecordingID, at seconds: Double, label: String? = nil) throws -> Recording {
        let marker = try ClipMarker(at: seconds, label: label)
        return try library.store.write { tx in try ClipMarkers(tx.db).add(marker, to: id) }
    }

    /// Removes a recording's `number`th marker (from 1, in time order). One transaction.
    ///
    /// Throws ``CraveyError``: `.notFound` for a recording not in the library, `.invalidInput`
    /// for a number no marker of it has (nothing changes).
    @discardableResult
    package func remove(_ number: Int, of id: RecordingID) throws -> Recording {
        try library.store.write { tx in try ClipMarkers(tx.db).remove(number, of: id) }
    }
}
