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
}
