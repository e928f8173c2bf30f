import Foundation
internal import CFFmpeg

/// Brings an outside media file into the library's formats: AAC in .m4a for audio, H.264 with
/// AAC in .mp4 for video. Files already in those formats keep their streams (a remux); others
/// are transcoded.
enum MediaImporter {
    struct Imported {
        var url: URL
        var type: RecordingType
        var duration: Double
    }

    /// Writes the library's version of `source` to the `.partial` file of `id`. Throws
    /// `.undecodableMedia` (nothing left behind) when `source` is not media FFmpeg can decode.
    static func prepare(_ source: URL, storage: FileStorageManager, id: UUID) throws(CraveyError) -> Imported {
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw CraveyError(.notFound, "There is no file at \(source.path).")
        }
        do {
            _ = try MediaProbe.playableDuration(of: source)
        } catch {
            throw CraveyError(.undecodableMedia, "Cannot import \(source.path): \(error.message.replacingOccurrences(of: source.path + " ", with: "")) Nothing was stored.")
        }
        let info = try MediaProbe.info(of: source)
        let type: RecordingType = info.videoStream != nil ? .video : .audio
        let partial = storage.partialURL(for: id, type: type)
        do {
            if isLibraryFormat(info) {
                try Muxer.remux(source, to: partial, format: type == .audio ? "ipod" : "mp4")
            } else {
                try Transcoder.transcode(source, to: partial, format: type == .audio ? "ipod" : "mp4")
            }
            chmod(partial.path, 0o600)
            return Imported(url: partial, type: type, duration: try MediaProbe.duration(of: partial))
        } catch {
            unlink(partial.path)
            throw CraveyError(.undecodableMedia, "Cannot import \(source.path): \(error). Nothing was stored.")
        }
    }

    /// AAC audio (and H.264 video) in an MP4-family container: kept as it is.
    static func isLibraryFormat(_ info: MediaInfo) -> Bool {
        guard info.formatName.contains("mp4") else { return false }
        if let video = info.videoStream {
            return video.codecName == "h264" && (info.audioStream.map { $0.codecName == "aac" } ?? true)
        }
        return info.audioStream?.codecName == "aac"
    }
}
