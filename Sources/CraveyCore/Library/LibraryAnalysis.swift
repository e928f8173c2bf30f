import Foundation

/// What cravey measures and draws of a clip: its waveform, its thumbnail, its loudness. A
/// capability reached from the door (``RecordingLibrary/analysis``). The parts that read what is
/// stored are here; the parts that decode media (``waveform(of:)``, ``makeThumbnail(of:at:)``,
/// the loudness) are CraveyKit's (`CraveyKit/Analysis/LibraryAnalysis+Media.swift`).
///
/// Public because an embedder draws a clip's waveform and shows its thumbnail as `cravey` does.
package struct LibraryAnalysis: Sendable {
    package let library: RecordingLibrary

    /// `recording`'s waveform as it is stored beside it, read without decoding anything; nil
    /// when none is stored (a clip saved before waveforms were kept, or without sound) or the
    /// file there does not read as one. CraveyKit's `waveform(of:)` makes a missing one.
    package func storedWaveform(of recording: Recording) -> Waveform? {
        library.store.waveform(of: ClipFiles(recording))
    }

    /// Where `recording`'s thumbnail is, when it has one there as a regular file: for a desktop
    /// that shows it.
    package func thumbnailURL(of recording: Recording) -> URL? {
        guard recording.thumbnailPath != nil, let file = ClipFiles(recording).file(.thumbnail),
              library.store.status(of: file).size != nil else { return nil }
        return library.store.files?.url(of: file)
    }
}
