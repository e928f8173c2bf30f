import Foundation

/// A media file to read, and how it is opened: a file of the library, beneath the library
/// folder's descriptor (FFmpeg reads it through an I/O context, never by a path something could
/// have swapped for a link), or a file outside the library that a person named, by its path.
package struct MediaLocation: Sendable {
    /// Where the file is, for messages.
    package let url: URL
    /// The library the file is in; nil for a file outside it.
    private let storage: FileStorageManager?

    /// A file of the library in `storage`.
    init(_ url: URL, in storage: FileStorageManager) {
        self.url = url
        self.storage = storage
    }

    private init(outside url: URL) {
        self.url = url
        storage = nil
    }

    /// A file outside the library: an import's source, a benchmark's or a fuzzer's input.
    package static func outside(_ url: URL) -> MediaLocation {
        MediaLocation(outside: url)
    }

    /// Opens the file for demuxing. Throws ``CraveyError``: `.notFound` when there is no file,
    /// `.undecodableMedia` when it is not media FFmpeg reads.
    func open() throws(CraveyError) -> Demuxer {
        let opened: Result<Demuxer, FFmpegError>
        if let storage {
            let descriptor = try storage.openForReading(url)
            defer { try? descriptor.close() }
            opened = Result { () throws(FFmpegError) in try Demuxer(reading: descriptor, name: url.lastPathComponent) }
        } else {
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw CraveyError(.notFound, "No file at \(url.path).")
            }
            opened = Result { () throws(FFmpegError) in try Demuxer(url: url) }
        }
        do {
            return try opened.get()
        } catch {
            if error.posixErrno == EACCES {
                throw CraveyError(.other, "Cannot read \(url.path): permission denied.", underlying: error)
            }
            throw CraveyError(.undecodableMedia, "Cannot read \(url.path) as media (\(error.message)). The file is damaged or in a format FFmpeg does not know.",
                              underlying: error)
        }
    }
}

extension FileStorageManager {
    /// The media file at `url`, in this library, to read beneath its folder's descriptor.
    func media(_ url: URL) -> MediaLocation {
        MediaLocation(url, in: self)
    }

    /// What a media file of the library holds, from libavformat.
    package func probe(_ url: URL) throws(CraveyError) -> MediaInfo {
        try MediaProbe.info(of: media(url))
    }

    /// The duration of a media file of the library in seconds: the container's, or, when it
    /// declares none or an implausible one, the end of the last packet found by reading it.
    package func duration(of url: URL) throws(CraveyError) -> Double {
        try MediaProbe.duration(of: media(url))
    }
}
