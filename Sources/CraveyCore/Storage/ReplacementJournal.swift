import Foundation

/// What a clip's journal (``ClipFiles/Part/journal``, `.replacing`) holds while its media is
/// replaced (a trim, a clean-up): the new media's name, the inode it has (a rename keeps it),
/// and the clip's markers once the new media is in place, a line each.
///
/// A repair that finds the journal (a crash between it and the commit's end) tells which media
/// is in place by its inode: the new one takes the markers written here, the old one keeps the
/// row's. Either way the markers are those of the sound in place, in the same row write as its
/// length and size. A journal written before clips had markers holds the name alone: the row's
/// markers stay.
package struct ReplacementJournal: Equatable, Sendable {
    /// The new media's name while it was written.
    package var media: String
    /// The new media's inode; nil in a journal that does not say.
    package var inode: UInt64?
    /// The clip's markers once the new media is in place; nil in a journal that does not say.
    package var markers: [ClipMarker]?

    package init(media: String, inode: UInt64?, markers: [ClipMarker]?) {
        self.media = media
        self.inode = inode
        self.markers = markers
    }

    /// Reads a journal's bytes: `name`, then `inode N` and the markers' lines
    /// (``ClipMarker/stored(_:)``), or the name alone.
    package init?(_ data: Data) {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard let name = lines.first, !name.isEmpty else { return nil }
        media = String(name)
        guard lines.count >= 2, lines[1].hasPrefix("inode "), let inode = UInt64(lines[1].dropFirst(6)) else { return }
        self.inode = inode
        markers = ClipMarker.parse(lines.count > 2 ? String(lines[2]) : "")
    }

    /// The journal's bytes.
    package var data: Data {
        var text = media
        if let inode { text += "\ninode \(inode)" }
        if let markers { text += "\n" + ClipMarker.stored(markers) }
        return Data(text.utf8)
    }
}
