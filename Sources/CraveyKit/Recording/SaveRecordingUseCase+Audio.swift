import Foundation

extension SaveRecordingUseCase {
    /// Saves an audio recording made by ``AudioRecordingCoordinator``, with the loudness it measured.
    public func execute(_ result: AudioRecordingResult, metadata: RecordingMetadata,
                        createdAt: Date = Date()) throws -> Recording {
        try execute(fileAt: result.fileURL, id: result.id, type: .audio, duration: result.duration,
                    metadata: metadata, createdAt: createdAt, loudness: result.loudness)
    }
}
