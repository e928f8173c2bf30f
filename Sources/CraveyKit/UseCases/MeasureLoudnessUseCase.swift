import Foundation

/// Measures the loudness of a clip already in the library and stores it in its row: for
/// `doctor --repair`, and for embedders measuring old clips ahead of time. (A play measures a
/// clip without one itself, storing it only when it can: ``PlayRecordingUseCase``.)
public struct MeasureLoudnessUseCase: Sendable {
    let library: RecordingLibrary

    public init(library: RecordingLibrary) {
        self.library = library
    }

    /// Measures on a thread of its own: decoding blocks for as long as the file takes, which must
    /// not hold a thread of the cooperative pool.
    public func execute(_ recording: Recording) async throws -> LoudnessMeasurement? {
        try await onDedicatedThread(named: "cravey.loudness") { try self.execute(recording) }
    }

    /// Decodes the clip's audio, measures it and stores the measurement; returns it, or nil (and
    /// stores nothing) when the clip has no audio stream. Throws ``CraveyError``: `.notFound`
    /// when its file or its row is gone, `.undecodableMedia` when its audio does not decode.
    public func execute(_ recording: Recording) throws -> LoudnessMeasurement? {
        let url = try library.storage.absoluteURL(for: recording.filePath)
        guard let measurement = try LoudnessMeter.measure(fileAt: url) else { return nil }
        try library.repository.updateLoudness(of: recording.id, to: measurement)
        return measurement
    }
}
