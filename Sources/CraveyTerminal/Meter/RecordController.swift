import CraveyKit
import Foundation

/// One recording, as `cravey record` and the home screen's `r` both make it: started through
/// the door, followed until it is stopped (each event handed on as it comes), and saved with the
/// markers made meanwhile, in the save's own transaction.
struct RecordController: Sendable {
    let library: RecordingLibrary

    /// Starts recording as `options` say.
    func start(_ options: RecordingOptions) async throws -> Recorder {
        try await library.record(options)
    }

    /// Hands each event of `recorder` to `each`, on a task of its own, until it is stopped; then
    /// saves the clip with `metadata`, made at `createdAt`, with the markers `markers` gives once
    /// it has ended. Returns (or throws what the save threw) once every event was handed on.
    static func save(_ recorder: Recorder, _ metadata: RecordingMetadata, createdAt: Date,
                     markers: @escaping @Sendable () async -> [ClipMarker],
                     each: @escaping @Sendable (RecordingEvent) -> Void) async throws -> Recording {
        let events = Task {
            for await event in recorder.events { each(event) }
        }
        do {
            let recording = try await recorder.save(metadata, createdAt: createdAt, markers: markers)
            await events.value
            return recording
        } catch {
            await events.value
            throw error
        }
    }
}
