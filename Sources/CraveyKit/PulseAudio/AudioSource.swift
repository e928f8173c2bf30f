/// A PulseAudio source (a microphone, a line input, or the monitor of a sink).
public struct AudioSource: Sendable, Codable, Equatable {
    /// The name to pass as `--device`, for example `alsa_input.pci-0000_00_1f.3.analog-stereo`.
    public var name: String
    /// The human description, for example "Built-in Audio Analog Stereo".
    public var description: String
    /// True for the server's default source.
    public var isDefault: Bool
    /// True when the source is the monitor of an output (what is being played, not a microphone).
    public var isMonitor: Bool
}

/// A PulseAudio sink: an output the player can play to.
public struct AudioSink: Sendable, Codable, Equatable {
    /// The name to pass as `play --device`, for example `alsa_output.pci-0000_00_1f.3.analog-stereo`.
    public var name: String
    /// The human description, for example "Built-in Audio Analog Stereo".
    public var description: String
    /// True for the server's default sink.
    public var isDefault: Bool
}
