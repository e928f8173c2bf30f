import Foundation

extension SaveRecordingUseCase {
    /// Saves a video recording made by ``VideoRecordingCoordinator``: makes its thumbnail (320 px
    /// JPEG from 10% in, dark frames skipped) and stores its path, with the loudness it measured.
    /// A thumbnail that cannot be made does not cost the clip: it is saved without one.
    public func execute(_ result: VideoRecordingResult, metadata: RecordingMetadata,
                        createdAt: Date = Date()) throws -> Recording {
        let thumbnail = try? library.storage.generateThumbnail(forVideoAt: result.fileURL, id: result.id)
        return try execute(fileAt: result.fileURL, id: result.id, type: .video, duration: result.duration,
                           thumbnailPath: thumbnail, metadata: metadata, createdAt: createdAt, loudness: result.loudness)
    }
}
