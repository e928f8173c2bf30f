/// A device of the sound server: a source to record from (a microphone, a line input, or the
/// monitor of an output), or a sink to play to.
package struct AudioDevice: Sendable, Codable, Equatable {
    /// The name ``RecordingOptions/source`` and ``PlaybackOptions/sink`` take, for example
    /// `alsa_input.pci-0000_00_1f.3.analog-stereo`.
    package var name: String
    /// The human description, for example "Built-in Audio Analog Stereo".
    package var description: String
    /// True for the server's default source (in ``sources()``) or sink (in ``sinks()``).
    package var isDefault: Bool
    /// True for a source that is the monitor of an output (what is being played, not a microphone).
    package var isMonitor: Bool

    /// The sources the sound server offers, the default one marked. Throws ``CraveyError``
    /// `.unavailable` when no server is reachable.
    package static func sources() async throws -> [AudioDevice] {
        try await devices(.sources)
    }

    /// The sinks the sound server offers, the default one marked. Throws ``CraveyError``
    /// `.unavailable` when no server is reachable.
    package static func sinks() async throws -> [AudioDevice] {
        try await devices(.sinks)
    }

    private static func devices(_ kind: ServerConnection.DeviceKind) async throws -> [AudioDevice] {
        do {
            return try await onDedicatedThread(named: "cravey.pulse") { () throws(PulseAudioError) in
                try ServerConnection().devices(kind)
            }
        } catch let error as PulseAudioError {
            throw kind == .sources ? CraveyError.soundServer(error, source: nil) : CraveyError.soundServer(error, sink: nil)
        }
    }
}
