import Foundation

extension RecordingLibrary {
    /// `recording`'s waveform as it is stored beside it, read without decoding anything; nil
    /// when none is stored (a clip saved before waveforms were kept, or without sound) or the
    /// file there does not read as one. CraveyKit's `waveform(of:)` makes a missing one.
    package func storedWaveform(of recording: Recording) -> Waveform? {
        storage.storedWaveform(of: recording.id, type: recording.type)
    }
}
