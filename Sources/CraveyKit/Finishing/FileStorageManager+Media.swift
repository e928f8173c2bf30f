import Foundation

extension FileStorageManager {
    /// The duration of a media file in seconds: the container's, or, when it declares none or an
    /// implausible one, the end of the last packet found by reading the file.
    public func duration(of url: URL) throws(CraveyError) -> Double {
        try MediaProbe.duration(of: url)
    }

    /// What a media file holds, from libavformat.
    public func probe(_ url: URL) throws(CraveyError) -> MediaInfo {
        try MediaProbe.info(of: url)
    }

    /// Rewrites a file of the library as a normal MP4 (index up front) by stream copy: the copy
    /// is written to a new `.finishing` sibling, which replaces the file in one rename only when
    /// it is complete. On failure the file stays as it was and no `.finishing` file is left.
    /// A failed rename throws `Errno`. The caller owns `url` (it wrote it, or no one holds it), so
    /// a `.finishing` file already there is one a crash left mid-rewrite: it goes first, or the
    /// exclusive creation would refuse every later rewrite of the file.
    func rewriteAsNormalMP4(_ url: URL, format: String, audioPriming: Int64 = 0) throws {
        let finishing = Self.finishingURL(for: url)
        try remove(finishing)
        try create(finishing) { file in
            try Muxer.remux(url, into: file, format: format, audioPriming: audioPriming)
        }
        try replace(url, with: finishing)
    }
}
