import Foundation

/// Saves a finished recording into the library: moves the file into `Recordings/`, then inserts
/// its row, both under the library lock, so every other process sees the clip saved or not yet
/// saved, never a file without its row. The file is never deleted here: if the row cannot be
/// written the clip stays in `Recordings/`, where `doctor` finds it.
public struct SaveRecordingUseCase: Sendable {
    package let library: RecordingLibrary

    public init(library: RecordingLibrary) {
        self.library = library
    }

    /// Saves a finished media file of the library's formats under `id`, with its loudness when
    /// it was measured. The lock this process held on the file while writing it
    /// (``FileStorageManager/create(_:)``) goes once it is saved.
    public func execute(fileAt url: URL, id: UUID, type: RecordingType, duration: Double,
                        thumbnailPath: String? = nil, metadata: RecordingMetadata,
                        createdAt: Date = Date(), loudness: LoudnessMeasurement? = nil) throws -> Recording {
        let storage = library.storage
        defer { storage.release(url) }
        return try library.exclusively {
            let relative = try storage.saveRecording(from: url, type: type, id: id)
            let recording = Recording(
                id: id, type: type, title: metadata.resolvedTitle(createdAt: createdAt),
                notes: metadata.notes, purpose: metadata.purpose, createdAt: createdAt,
                duration: duration, filePath: relative, thumbnailPath: thumbnailPath,
                fileSize: try storage.fileSize(at: relative), loudness: loudness)
            do {
                try library.repository.insert(recording)
            } catch {
                throw CraveyError(.cannotWrite, "The clip was saved to \(storage.url(of: relative).path), but its library entry could not be written (\(error)). Run `cravey doctor --repair` once the problem is fixed to register it.", underlying: error)
            }
            return recording
        }
    }
}
