/// The PulseAudio (or PipeWire pulse) server, for questions asked before recording or playing.
public enum SoundServer {
    /// The sources the server offers, the default one marked. Throws ``CraveyError`` `.unavailable`
    /// when no server is reachable.
    public static func sources() async throws -> [AudioSource] {
        do {
            return try await onDedicatedThread(named: "cravey.pulse") { () throws(PulseAudioError) in
                try ServerConnection().sources()
            }
        } catch let error as PulseAudioError {
            throw CraveyError.soundServer(error, source: nil)
        }
    }

    /// The sinks the server offers, the default one marked. Throws ``CraveyError`` `.unavailable`
    /// when no server is reachable.
    public static func sinks() async throws -> [AudioSink] {
        do {
            return try await onDedicatedThread(named: "cravey.pulse") { () throws(PulseAudioError) in
                try ServerConnection().sinks()
            }
        } catch let error as PulseAudioError {
            throw CraveyError.soundServer(error, sink: nil)
        }
    }
}
