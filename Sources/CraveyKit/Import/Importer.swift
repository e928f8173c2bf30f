import Foundation
import SystemPackage

/// Brings an outside media file into the library: refuses what cannot be decoded (storing
/// nothing), writes the library's version of it (AAC in .m4a for audio, H.264 with AAC in .mp4 for
/// video; files already in those formats keep their streams, a remux; others are transcoded) and
/// finishes it into a clip (``ClipFinisher``). The door's ``RecordingLibrary/importFile(at:metadata:createdAt:)``
/// runs it on a thread of its own, cancellable (``importFile(at:into:metadata:createdAt:holding:)``,
/// which `cravey import` calls to keep the sound for the words); a test or the fuzzer calls it directly.
package enum Importer {
    struct Imported {
        var file: StoredFile
        var type: RecordingType
        var duration: Double
    }

    /// The door's ``RecordingLibrary/importFile(at:metadata:createdAt:)``: imports `source` on a
    /// thread of its own, cancellable, and with `sound`, holds there the sound as it was decoded
    /// before it was encoded, for the new clip's words (``HeldSound``: a file kept as it is holds
    /// none, its media being that sound already).
    ///
    /// Cancelling the task stops the import and leaves nothing in the library (it throws
    /// `CancellationError`), unless the clip was saved already: then it is returned as usual.
    package static func importFile(at source: URL, into store: LibraryStore, metadata: RecordingMetadata,
                                   createdAt: Date = Date(), holding sound: HeldSound? = nil) async throws -> Recording {
        if let refusal = store.refusal { throw refusal }
        let id = RecordingID()
        let outcome = Completion<Recording>()
        Task {
            do {
                outcome.resolve(.success(try await onDedicatedThread(named: "cravey.import") {
                    try importFile(source, into: store, id: id, metadata: metadata, createdAt: createdAt, holding: sound)
                }))
            } catch {
                // Given up meanwhile: whatever stopped the work, the import was cancelled.
                outcome.resolve(.failure(store.isAbandoned(id) ? CancellationError() : error))
            }
        }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            // Under the writers' lock: a save under way completes first, and then the clip stays.
            // An abandon that cannot take the lock leaves the import to finish or fail by itself.
            if (try? store.abandon(id)) == true { outcome.resolve(.failure(CancellationError())) }
        }
    }

    /// Imports `source` as clip `id`, on the calling thread (blocking), its decoded sound held in
    /// `sound` when it is transcoded. Nothing half-imported stays behind: a failure at any step
    /// removes what this import wrote.
    package static func importFile(_ source: URL, into store: LibraryStore, id: RecordingID = RecordingID(),
                                   metadata: RecordingMetadata, createdAt: Date = Date(), holding sound: HeldSound? = nil) throws -> Recording {
        let imported = try prepare(source, store: store, id: id, holding: sound)
        let clip = ClipFiles(id: id, type: imported.type)
        do {
            return try ClipFinisher(store: store).finish(
                .init(file: imported.file, id: id, type: imported.type, duration: imported.duration, fragmented: false,
                      requiresThumbnail: true),
                metadata: metadata, createdAt: createdAt)
        } catch {
            // Nothing of the clip stays: the person still has the file. (Its row, had it been
            // written, would have been the last step, so there is none.)
            for file in clip.writing + clip.finished { store.remove(file) }
            guard var error = error as? CraveyError else { throw error }
            // The thumbnail was made from our copy; the person knows the file they named.
            if error.kind == .undecodableMedia {
                throw CraveyError(.undecodableMedia, "Cannot import \(source.path): no picture of its video decodes. Nothing was stored.")
            }
            // Its file is gone again: the message says what is true now, not what the save said.
            if error.advice.contains(.registerWithRepair), let cause = error.underlying {
                error.message = "Cannot import \(source.path): its library entry could not be written (\(CraveyError(database: cause)?.message ?? "\(cause)")). Nothing was stored."
                error.advice = []
            }
            throw error
        }
    }

    /// Writes the library's version of `source` to the `.importing` file of `id`. Throws
    /// `.invalidInput` when `source` is not a regular file (a named pipe, a directory, a
    /// device...), and `.undecodableMedia` (nothing left behind) when it is not media FFmpeg can
    /// decode. A transcode holds the sound it decodes in `sound`.
    static func prepare(_ source: URL, store: LibraryStore, id: RecordingID, holding sound: HeldSound? = nil) throws -> Imported {
        try refuseUnlessRegularFile(source)
        let input: Demuxer
        do {
            input = try Demuxer(url: source)
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot import \(source.path): FFmpeg cannot read it as media (\(error.message)). Nothing was stored.")
        }
        let undecodable: String?
        do {
            undecodable = try MediaProbe.undecodableReason(input)
        } catch {
            throw CraveyError(.other, "Cannot import \(source.path): \(error.message). Nothing was stored.", underlying: error)
        }
        if let reason = undecodable {
            throw CraveyError(.undecodableMedia, "Cannot import \(source.path): it \(reason). Nothing was stored.")
        }
        let info = input.info
        // A cut-short MP4 with its index up front opens and decodes until the data runs out; a
        // copy would keep only part of it without a word, so it is refused like any damaged file.
        if let missing = input.firstMissingSample() {
            let listed = info.containerDuration.map { String(format: "%.1f s of media", $0) } ?? "more media"
            throw CraveyError(.undecodableMedia, """
                Cannot import \(source.path): the file is cut short (its index lists \(listed), but the \
                data stops at \(String(format: "%.1f", missing)) s), as an unfinished download or copy is. \
                Nothing was stored.
                """, advice: .keepWhatIsThere)
        }
        // libavformat reads a lone picture (PNG, JPEG...) as a one-frame video; it is no recording.
        if info.audioStream == nil, info.formatName == "image2" || info.formatName.hasSuffix("_pipe") {
            throw CraveyError(.undecodableMedia, """
                Cannot import \(source.path): it is a still picture (\(info.formatName)), not audio or video. \
                Nothing was stored.
                """)
        }
        let type: RecordingType = info.videoStream != nil ? .video : .audio
        let partial = ClipFiles(id: id, type: type).media(.importing)
        var created = false
        do {
            try store.create(partial) { file in
                created = true
                if isLibraryFormat(info) {
                    try Muxer.remux(source, into: file, format: Container(for: type).formatName)
                } else {
                    try Transcoder.transcode(source, into: file, container: Container(for: type), holding: sound,
                                             until: { store.isAbandoned(id) })
                }
            }
        } catch {
            // A file that was there before is not ours to remove.
            if created { store.remove(partial) }
            if error is CancellationError { throw error }
            // A full disk or a read-only library is not the file's fault: say so, with its fix.
            let place = store.files?.url(of: partial) ?? URL(fileURLWithPath: partial.path)
            if case var refusal = CraveyError.writing(error, to: place), refusal.kind == .cannotWrite {
                refusal.message += " Nothing was stored."
                throw refusal
            }
            throw CraveyError(.undecodableMedia, "Cannot import \(source.path): \(error). Nothing was stored.")
        }
        // Read to its end, in the one reading that gives its length: a file random, zeroed or cut
        // off after its first seconds opens and decodes a first frame, and its copy would keep
        // the damage without a word.
        let decoding: MediaProbe.Decoding
        do {
            decoding = try MediaProbe.decoding(of: store.media(partial))
        } catch {
            store.remove(partial)
            if error is CraveyError { throw CraveyError(.undecodableMedia, "Cannot import \(source.path): \(error). Nothing was stored.") }
            throw error
        }
        guard let damage = decoding.problem else { return Imported(file: partial, type: type, duration: decoding.declared) }
        store.remove(partial)
        throw CraveyError(.undecodableMedia, "Cannot import \(source.path): it \(damage). Nothing was stored.")
    }

    /// Refuses, before FFmpeg opens anything, what is not a regular file once links are followed:
    /// a named pipe would block the import until some program wrote to it, and a directory or a
    /// device is no media file. A missing file is `.notFound`, one that cannot be looked at `.other`; the others are `.invalidInput`.
    ///
    /// The corresponding C function is `stat`.
    static func refuseUnlessRegularFile(_ source: URL) throws(CraveyError) {
        var status = stat()
        guard stat(source.path, &status) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw CraveyError(.notFound, "There is no file at \(source.path).")
            }
            // It is there but cannot be looked at (permission, a loop of links): not "unknown".
            throw CraveyError(.other, "Cannot import \(source.path): \(String(cString: strerror(code))).",
                              underlying: Errno(rawValue: code))
        }
        let refusal: (kind: String, advice: CraveyError.Advice?)
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            return
        case S_IFIFO:
            refusal = ("a named pipe (FIFO)", .savePipeFirst(source.path))
        case S_IFDIR:
            refusal = ("a directory", nil)
        case S_IFCHR:
            refusal = ("a character device", .recordInstead)
        case S_IFBLK:
            refusal = ("a block device", nil)
        case S_IFSOCK:
            refusal = ("a socket", nil)
        default:
            refusal = ("neither a file nor a link to one", nil)
        }
        throw CraveyError(.invalidInput, "Cannot import \(source.path): it is \(refusal.kind), not a media file. Nothing was stored.",
                          advice: refusal.advice)
    }

    /// AAC audio of at most two channels (and H.264 video) in an MP4-family container: kept as
    /// it is. More channels are mixed down to stereo by a transcode.
    static func isLibraryFormat(_ info: MediaInfo) -> Bool {
        guard info.formatName.contains("mp4"), (info.audioStream?.channels ?? 0) <= 2 else { return false }
        if let video = info.videoStream {
            return video.codecName == "h264" && (info.audioStream.map { $0.codecName == "aac" } ?? true)
        }
        return info.audioStream?.codecName == "aac"
    }
}
