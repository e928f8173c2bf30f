import Foundation
import Synchronization

/// cravey opens no network connection: the sound server and the display it uses are the ones on
/// this computer, reached through local sockets. A server the environment names over the
/// network (`PULSE_SERVER=tcp:host`, `DISPLAY=localhost:10.0` as `ssh -X` sets it) is refused
/// before any socket is opened, unless ``allowsNetwork`` says otherwise (the command line's
/// `network.allow-servers` setting). The session bus refuses `tcp:` addresses itself
/// (``SessionBus``).
///
/// A `DISPLAY` over the network is refused for sound too: the PulseAudio client library reads
/// the display's PulseAudio properties when it connects (`pa_context_new`), which would reach it.
package enum LocalServers {
    /// Whether sound servers and displays over the network may be used. False unless the
    /// program sets it, before it plays or records.
    package static let allowsNetwork = Atomic<Bool>(false)

    /// The refusal for the sound server the environment names, nil when it (and the display
    /// the sound library would read) is on this computer, or the network is allowed.
    package static func soundServerRefusal(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> CraveyError? {
        guard !allowsNetwork.load(ordering: .relaxed) else { return nil }
        if let server = environment["PULSE_SERVER"], !server.isEmpty,
           !server.split(whereSeparator: \.isWhitespace).allSatisfy({ isLocalSoundServer(String($0)) }) {
            return refusal("PULSE_SERVER", server, "a sound server")
        }
        return displayRefusal(environment)
    }

    /// The refusal for the X display the environment names, nil when it is on this computer
    /// (or none is named, or the network is allowed). A Wayland display is always a local socket.
    package static func displayRefusal(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> CraveyError? {
        guard !allowsNetwork.load(ordering: .relaxed), let display = environment["DISPLAY"], !display.isEmpty,
              !isLocalDisplay(display) else { return nil }
        return refusal("DISPLAY", display, "a display")
    }

    private static func refusal(_ variable: String, _ value: String, _ what: String) -> CraveyError {
        CraveyError(.unavailable, """
            \(variable)=\(value) names \(what) reached over the network, and cravey opens no network \
            connection: it was not used, and nothing was played or recorded.
            """, advice: .useLocalServers(variable))
    }

    /// Whether one entry of `PULSE_SERVER` is a local socket: `unix:PATH` or an absolute path,
    /// after an optional `{machine-id}`. Anything else (`tcp:`, `tcp4:`, `tcp6:`, a host name,
    /// `localhost`) is a TCP connection.
    static func isLocalSoundServer(_ entry: String) -> Bool {
        var address = Substring(entry)
        if address.hasPrefix("{"), let end = address.firstIndex(of: "}") { address = address[address.index(after: end)...] }
        return address.hasPrefix("unix:") || address.hasPrefix("/")
    }

    /// Whether an X display name (`[protocol/][host]:number[.screen]`) is reached through a
    /// local socket: no host, `unix` as the host or the protocol, or a socket's path.
    static func isLocalDisplay(_ name: String) -> Bool {
        var rest = Substring(name)
        if let slash = rest.firstIndex(of: "/"), slash != rest.startIndex {
            let transport = rest[..<slash]
            guard ["unix", "local"].contains(transport) else { return false }
            rest = rest[rest.index(after: slash)...]
        }
        if rest.hasPrefix("/") { return true }
        guard let colon = rest.lastIndex(of: ":") else { return false }
        let host = rest[..<colon]
        return host.isEmpty || host == "unix"
    }
}
