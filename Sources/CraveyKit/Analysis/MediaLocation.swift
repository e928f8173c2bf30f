import Foundation

/// A media file to read, and how it is opened: a file of the library, beneath the library
/// folder's descriptor (FFmpeg reads it through an I/O context, never by a path something could
/// have swapped for a link), or a file outside the library that a person named, by its path.
package struct MediaLocation: Sendable {
    /// Where the file is, for messages.
    package let url: URL
    /// The file's name in the library, and the library; nil for a file outside it.
    private let stored: (file: StoredFile, store: LibraryStore)?

    /// A file of the library in `store`.
    init(_ file: StoredFile, in store: LibraryStore) {
        url = store.files?.url(of: file) ?? URL(fileURLWithPath: file.path)
        stored = (file, store)
    }

    private init(outside url: URL) {
        self.url = url
        stored = nil
    }

    /// A file outside the library: an import's source, a benchmark's or a fuzzer's input.
    package static func outside(_ url: URL) -> MediaLocation {
        MediaLocation(outside: url)
    }

    /// Opens the file for demuxing. Throws ``CraveyError``: `.notFound` when there is no file,
    /// `.undecodableMedia` when it is not media FFmpeg reads.
    func open() throws(CraveyError) -> Demuxer {
        let opened: Result<Demuxer, FFmpegError>
        if let (file, store) = stored {
            let descriptor = try store.open(file)
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

extension LibraryStore {
    /// The media file `file` of this library, to read beneath its folder's descriptor.
    package func media(_ file: StoredFile) -> MediaLocation {
        MediaLocation(file, in: self)
    }
}
