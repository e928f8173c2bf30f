import Foundation

extension RecordingLibrary {
    /// Starts recording into the library: the microphone, and with ``RecordingOptions/camera`` a
    /// camera too. Returns the running ``Recorder``; its ``Recorder/save(_:createdAt:)`` waits for
    /// the end and saves the clip, its ``Recorder/discard()`` gives it up.
    ///
    /// Throws ``CraveyError``: `.unavailable` for no sound server, an unknown source or a camera
    /// that cannot be opened; `.cannotWrite` when the file cannot be created. A failed start
    /// leaves nothing behind.
    public func record(_ options: RecordingOptions = RecordingOptions()) async throws -> Recorder {
        if let refusal = store.refusal { throw refusal }
        let coordinator: any RecordingCoordinator = if let camera = options.cameraSource {
            VideoRecordingCoordinator(options: options, camera: camera)
        } else {
            AudioRecordingCoordinator(options: options)
        }
        let recorder = Recorder(into: store, coordinator: coordinator)
        try await recorder.start()
        return recorder
    }
}
