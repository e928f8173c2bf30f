import Foundation
import SystemPackage

/// A clip's sound with its noise taken out, made beside the clip and not kept yet: compare the
/// two (``LibraryShaping/play(_:options:)``), then ``LibraryShaping/keep(_:)`` it, which
/// replaces the clip as a trim does, or ``LibraryShaping/discard(_:)`` it, which changes nothing.
/// One dropped unkept is discarded.
package final class NoiseCleanup: Sendable {
    /// The clip as it was when cleaned.
    package let recording: Recording
    /// The stretch of the clip its noise was learnt from (its quietest), in seconds.
    package let noiseSample: Range<Double>
    /// The noise's level over that stretch (RMS, dBFS) before and after.
    package let noiseFloorBefore: Double
    package let noiseFloorAfter: Double
    /// How much the clip's loudness (its speech) changed, in LU; nil when either is not measured
    /// (a silent clip).
    package let speechLevelChange: Double?
    /// The filter chain that ran (libavfilter's syntax).
    package let filters: String
    /// The cleaned clip's loudness: what it plays at.
    package var loudness: LoudnessMeasurement? { measured.loudness }
    /// Seconds of the cleaned sound.
    package var duration: Double { measured.duration }

    let replacement: ClipFinisher.Replacement
    let measured: ClipFinisher.Measured
    private let store: LibraryStore
    private let settled = Locked(false)

    init(replacement: ClipFinisher.Replacement, measured: ClipFinisher.Measured, noiseSample: Range<Double>,
         result: NoiseCleaner.Result, store: LibraryStore) {
        recording = replacement.recording
        self.replacement = replacement
        self.measured = measured
        self.noiseSample = noiseSample
        noiseFloorBefore = result.noiseFloorBefore
        noiseFloorAfter = result.noiseFloorAfter
        filters = result.filters
        self.store = store
        if let before = replacement.recording.loudness?.integrated, let after = measured.loudness?.integrated,
           before.isFinite, after.isFinite {
            speechLevelChange = after - before
        } else {
            speechLevelChange = nil
        }
    }

    deinit { discard() }

    /// Marks the clean-up settled; false when it was already (kept or discarded).
    func settle() -> Bool {
        settled.withLock { settled in
            defer { settled = true }
            return !settled
        }
    }

    /// Removes the cleaned file, once.
    func discard() {
        guard settle() else { return }
        store.remove(replacement.file)
    }
}
