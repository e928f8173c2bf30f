import Foundation

/// Brings an existing media file into the library: probes it, refuses what cannot be decoded
/// (storing nothing), keeps AAC/H.264 in MP4 as it is and transcodes anything else, makes a
/// thumbnail for video, measures the loudness of the audio, and adds the row.
public struct ImportRecordingUseCase: Sendable {
    let library: RecordingLibrary

    public init(library: RecordingLibrary) {
        self.library = library
    }

    /// Imports on a thread of its own: decoding and encoding block for as long as the file takes,
    /// which must not hold a thread of the cooperative pool. The clip is stored under `id`, which
    /// a caller that may stop the import (``abandon(_:)``) chooses first.
    public func execute(fileAt source: URL, metadata: RecordingMetadata, id: UUID = UUID(),
                        createdAt: Date = Date()) async throws -> Recording {
        try await onDedicatedThread(named: "cravey.import") {
            try self.execute(fileAt: source, metadata: metadata, id: id, createdAt: createdAt)
        }
    }

    /// Imports on the calling thread.
    public func execute(fileAt source: URL, metadata: RecordingMetadata, id: UUID = UUID(),
                        createdAt: Date = Date()) throws -> Recording {
        let storage = library.storage
        let imported = try MediaImporter.prepare(source, storage: storage, id: id)
        var thumbnail: String?
        // Nothing half-imported stays behind.
        func removeImported() {
            try? storage.remove(imported.url)
            try? storage.remove(storage.url(of: storage.relativePath(for: id, type: imported.type)))
            if let thumbnail { try? storage.deleteThumbnail(at: thumbnail) }
        }
        do throws(CraveyError) {
            if imported.type == .video {
                thumbnail = try storage.generateThumbnail(forVideoAt: imported.url, id: id)
            }
        } catch {
            removeImported()
            // The thumbnail was made from our copy; the person knows the file they named.
            throw error.kind == .undecodableMedia
                ? CraveyError(.undecodableMedia, "Cannot import \(source.path): no picture of its video decodes. Nothing was stored.")
                : error
        }
        // The library's copy, as it will play. No audio stream, no measurement; audio that does
        // not decode is no reason to refuse a clip whose picture does (it gets none either).
        let loudness = (try? LoudnessMeter.measure(fileAt: imported.url)) ?? nil
        do {
            return try SaveRecordingUseCase(library: library).execute(
                fileAt: imported.url, id: id, type: imported.type, duration: imported.duration,
                thumbnailPath: thumbnail, metadata: metadata, createdAt: createdAt, loudness: loudness)
        } catch {
            removeImported()
            throw error
        }
    }

    /// Stops the import of clip `id` for good (Ctrl-C, SIGTERM), unless it is saved already.
    ///
    /// Under the writers' lock, so a save under way completes first: if the library holds a row
    /// for `id`, the clip is stored, nothing is given up and the result is false (the import is
    /// as good as done and should print its clip). Otherwise every file this process is still
    /// writing goes, with its thumbnail, and the result is true: nothing was stored. A database
    /// that cannot be read counts as no row.
    public func abandon(_ id: UUID) -> Bool {
        library.storage.exclusively {
            guard (try? library.repository.fetch(id: id)) == nil else { return false }
            library.storage.abandonLiveFiles()
            return true
        }
    }

    /// The title a clip imported without one gets: its file's name without the extension
    /// ("coach-talk" for coach-talk.mp3), which tells clips apart where the date does not.
    ///
    /// Each run of control characters (C0 and C1) becomes a space. A name longer than
    /// ``RecordingMetadata/maxTitleLength`` characters is shortened at its last word boundary
    /// (whitespace, '-' or '_') within the first 39 and ends in "…"; with no boundary there it is
    /// cut at 39. Nobody typed it, so this cuts none of a person's input. nil when nothing is
    /// left (".m4a", "  .wav"): the clip gets the automatic "Recording <date>" title.
    public static func title(forFileAt source: URL) -> String? {
        let name = source.lastPathComponent
        let stem = name.lastIndex(of: ".").map { name[..<$0] } ?? name[...]
        var cleaned = String.UnicodeScalarView()
        for scalar in stem.unicodeScalars {
            if scalar.properties.generalCategory != .control {
                cleaned.append(scalar)
            } else if cleaned.last != " " {
                cleaned.append(" ")
            }
        }
        let title = String(cleaned).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { return nil }
        guard title.count > RecordingMetadata.maxTitleLength else { return title }
        let isBoundary = { (character: Character) in character.isWhitespace || character == "-" || character == "_" }
        let head = title.prefix(RecordingMetadata.maxTitleLength - 1)
        var kept = head
        // A boundary right after the 39 characters means they end with a whole word.
        if !isBoundary(title[head.endIndex]), let boundary = head.lastIndex(where: isBoundary) {
            kept = head[..<boundary]
        }
        while let last = kept.last, isBoundary(last) { kept = kept.dropLast() }
        return String(kept.isEmpty ? head : kept) + "…"
    }
}
