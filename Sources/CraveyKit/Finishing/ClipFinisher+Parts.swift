import CraveyCore
import Foundation

extension ClipFinisher {
    /// What happened to a clip's media before its derived parts are written.
    enum MediaChange: Sendable, Equatable {
        /// A new clip: it has no part yet.
        case first
        /// A trim kept this stretch of the old media, in seconds: the parts that follow a cut
        /// (``ClipFiles/Part/moved``) move with it.
        case trimmed(ClosedRange<Double>)
        /// Other new media (a noise clean-up), or media a repair cannot tell the parts' from.
        case replaced
    }

    /// A part that moves with a cut is read whole, up to this size (a transcript is at most 16
    /// MiB); a larger one goes.
    static let largestMovedPart = 64 << 20

    /// Writes a clip's derived parts, in `tx`, from the list (``ClipFiles/Part/all``): every
    /// part made from the media as `made` has it (one it lacks goes: the old media's); every
    /// other derived part (the transcript) moves with a trim (``ClipFiles/Part/moved``), else
    /// goes. The copy is written from the row at the commit, and the media and the original
    /// parts stay as they are. Returns the thumbnail's path, when one was written.
    ///
    /// For a new clip (``MediaChange/first``), a part that cannot be written costs the clip
    /// nothing (its next use or a repair makes it again) unless it is in `required`; for a
    /// replacement, a failure is thrown.
    func writeParts(_ made: [ClipFiles.Part: Data], of clip: ClipFiles, after change: MediaChange,
                    requiring required: Set<ClipFiles.Part> = [], in tx: StoreTransaction) throws -> String? {
        var thumbnail: String?
        for part in ClipFiles.Part.all where part.origin == .derived && part.remaking != .fromRow {
            guard let file = clip.file(part) else { continue }  // none for this type of clip
            do {
                if part.remaking == .fromMedia, let data = made[part] {
                    let stored = try tx.store(data, as: part, of: clip)
                    if part == .thumbnail { thumbnail = stored.path }
                } else if change != .first {
                    if case .trimmed(let kept) = change, let moved = part.moved,
                       let bytes = store.contents(of: file, atMost: Self.largestMovedPart), let data = moved(bytes, kept) {
                        try tx.store(data, as: part, of: clip)
                    } else {
                        try tx.remove(file)
                    }
                }
            } catch where change == .first && !required.contains(part) {
                continue
            }
        }
        return thumbnail
    }
}
