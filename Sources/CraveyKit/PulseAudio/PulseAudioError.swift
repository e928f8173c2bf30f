internal import CPulseAudio

/// An error returned by the PulseAudio client library: the `PA_ERR_*` code and the call that failed.
package struct PulseAudioError: Error, Equatable, Sendable, CustomStringConvertible {
    package let code: Int32
    package let operation: String

    package init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// PulseAudio's text for the code. The corresponding C function is `pa_strerror`.
    package var message: String { String(cString: pa_strerror(code)) }

    package var description: String { "\(operation): \(message)" }

    package static func == (lhs: PulseAudioError, rhs: PulseAudioError) -> Bool { lhs.code == rhs.code }

    /// No server answered (not running, or `PULSE_SERVER` points nowhere).
    package static let connectionRefused = PulseAudioError(code: Int32(PA_ERR_CONNECTIONREFUSED.rawValue), operation: "")
    /// The named source or sink does not exist.
    package static let noSuchEntity = PulseAudioError(code: Int32(PA_ERR_NOENTITY.rawValue), operation: "")
    /// The server went away while we were talking to it.
    package static let connectionTerminated = PulseAudioError(code: Int32(PA_ERR_CONNECTIONTERMINATED.rawValue), operation: "")
    package static let accessDenied = PulseAudioError(code: Int32(PA_ERR_ACCESS.rawValue), operation: "")
    package static let timeout = PulseAudioError(code: Int32(PA_ERR_TIMEOUT.rawValue), operation: "")
    /// The server named is not one to connect to: malformed, or (refused by cravey before any
    /// socket is opened) one over the network, or none on this computer (``LocalServers``).
    package static let invalidServer = PulseAudioError(code: Int32(PA_ERR_INVALIDSERVER.rawValue), operation: "")

    /// The server to name to `pa_context_connect` or `pa_simple_new`, so that the library takes
    /// none of its own (``LocalServers/soundServer(_:)``); nil, the library's own choice, when the
    /// network is allowed. Throws ``invalidServer`` when there is none to use: called before
    /// every connection.
    static func server(_ operation: StaticString = #function) throws(PulseAudioError) -> String? {
        switch LocalServers.soundServer() {
        case .success(let server): return server
        case .failure: throw PulseAudioError(code: invalidServer.code, operation: "\(operation)")
        }
    }

    /// The flags of `pa_context_connect` for `server`: a server named is never spawned (the
    /// library turns its `autospawn` off then too); the library's own choice spawns as it always did.
    static func connectFlags(for server: String?) -> pa_context_flags_t {
        server == nil ? PA_CONTEXT_NOFLAGS : PA_CONTEXT_NOAUTOSPAWN
    }
}

/// Throws a ``PulseAudioError`` when a `pa_simple_*` call returned a negative value.
func check(_ result: Int32, error: Int32, _ operation: StaticString = #function) throws(PulseAudioError) {
    if result < 0 { throw PulseAudioError(code: error, operation: "\(operation)") }
}
